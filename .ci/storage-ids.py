#!/usr/bin/env python3
"""Typed ids at the storage boundary: no method of a storage trait (studio-core/src/storage/*.rs)
or of its SQL (storage/sql/*.rs) takes two ids as bare `&str` (parameters named `id`, `*_id`, or
`a`/`b`), and the house and the person are never bare text there (`org_id`/`user_id` are `&OrgId`
and `&UserId`). A swapped pair then fails to compile instead of reading another house's row.
Prints each offending signature and exits 1."""
import glob, re, sys

ID = re.compile(r'^(id|[a-z_]+_id|a|b)$')
bad = []
for path in sorted(glob.glob('studio-core/src/storage/*.rs') + glob.glob('studio-core/src/storage/sql/*.rs')):
    text = open(path).read()
    for m in re.finditer(r'fn (\w+)\s*(?:<[^>]*>)?\(([^)]*)\)', text):
        params = re.findall(r'(\w+):\s*(?:Option<)?&(?:\'\w+\s+)?str\b', m.group(2))
        line = text.count('\n', 0, m.start()) + 1
        ids = [p for p in params if ID.match(p.lstrip('_'))]
        if len(ids) >= 2:
            bad.append(f'{path}:{line}: fn {m.group(1)} takes {", ".join(ids)} as bare &str')
        for p in params:
            if p.lstrip('_') in ('org_id', 'user_id'):
                bad.append(f'{path}:{line}: fn {m.group(1)} takes {p} as bare &str (use OrgId / UserId)')
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
