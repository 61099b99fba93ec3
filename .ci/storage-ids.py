#!/usr/bin/env python3
"""Typed ids at the storage boundary: no method of a storage trait (studio-core/src/storage/*.rs)
or of its SQL (storage/sql/*.rs) takes an id as bare `&str` (a parameter named `id`, `*_id`, or
`a`/`b`): each kind has its type in studio-core/src/ids.rs (`&OrgId`, `&UserId`, `&AssetId`,
`&JobId`, ...), so passing one kind where another is due fails to compile instead of reading
another house's row. The declarations of a `statements! { ... }` block (storage/sql/stmt.rs) are
not scanned: they bind what the storage method passes, typed or not (a pagination cursor, an id
ids.rs has no kind for), and the compiler matches them to the method's typed arguments. Prints
each offending signature and exits 1."""
import glob, re, sys

ID = re.compile(r'^(id|[a-z_]+_id|a|b)$')
bad = []
for path in sorted(glob.glob('studio-core/src/storage/*.rs') + glob.glob('studio-core/src/storage/sql/*.rs')):
    text = open(path).read()
    # Blank out each `statements! { ... }` block (keeping its newlines, so line numbers hold).
    at = text.find('statements! {')
    while at != -1:
        depth, end = 0, at + len('statements! ')
        while end < len(text):
            depth += {'{': 1, '}': -1}.get(text[end], 0)
            end += 1
            if depth == 0:
                break
        text = text[:at] + re.sub(r'[^\n]', ' ', text[at:end]) + text[end:]
        at = text.find('statements! {', end)
    for m in re.finditer(r'fn (\w+)\s*(?:<[^>]*>)?\(([^)]*)\)', text):
        params = re.findall(r'(\w+):\s*(?:Option<)?&(?:\'\w+\s+)?str\b', m.group(2))
        line = text.count('\n', 0, m.start()) + 1
        ids = [p for p in params if ID.match(p.lstrip('_'))]
        for p in ids:
            bad.append(f'{path}:{line}: fn {m.group(1)} takes {p} as bare &str (use its type from ids.rs)')
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
