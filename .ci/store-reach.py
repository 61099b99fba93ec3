#!/usr/bin/env python3
"""Which domain may reach which store. The compiler holds most of the rule: `Studio`'s storage is
private to studio-core/src/studio.rs, and each view (declared with `view! { Name over Stores }`)
carries only `store`, private to its domain's module, typed by the stores its domain owns. This
check holds the rest:

1. every view is declared over exactly the stores OWN gives its domain (a group trait such as
   `BillingStores` is read from studio-core/src/storage/mod.rs), so widening what a domain may
   touch is a change to this table, seen in review;
2. no domain code (unit tests aside) calls `Studio::storage()`, the embedders' accessor, which
   would hand it every store;
3. every `store.<method>(` call in a domain folder names a method of one of its own stores (the
   compiler would refuse it too; this names the reach in words).

Prints each breach and exits 1."""
import os, re, sys

CORE = 'studio-core/src'
OWN = {
    'accounts': {'AccountStore', 'ProfileStore', 'SeatStore'}, 'admin': {'AnalystStore', 'ConsoleStore'},
    'ai': {'LaneStore'}, 'billing': {'BillingStore', 'LedgerStore'}, 'brand': {'BrandStore'},
    'chat': {'ChatStore'}, 'develops': {'JobStore'}, 'internal': {'InternalStore'},
    'invitations': {'InvitationStore'}, 'library': {'LibraryStore'}, 'links.rs': set(),
    'lookbook': {'LookbookStore'}, 'mail': {'MailStore'}, 'models': {'ModelStore'},
    'pipelines': {'PipelineStore'}, 'posts': {'PostStore'}, 'search': {'SearchStore'},
    'support': {'SupportStore'}, 'webhooks': {'WebhookStore'},
}

trait_of, groups = {}, {}
for f in os.listdir(CORE + '/storage'):
    if f.endswith('.rs'):
        text = open(os.path.join(CORE, 'storage', f)).read()
        for m in re.finditer(r'pub trait (\w+Store)\b[^{]*\{(.*?)\n\}', text, re.S):
            for name in re.findall(r'\bfn (\w+)', m.group(2)):
                trait_of[name] = m.group(1)
        for m in re.finditer(r'pub trait (\w+Stores)\s*:\s*([\w\s+]+?)\s*\{\s*\}', text):
            groups[m.group(1)] = {s.strip() for s in m.group(2).split('+')}

broken, views = [], 0
for top, own in OWN.items():
    path = os.path.join(CORE, top)
    files = [path] if top.endswith('.rs') else [os.path.join(d, f) for d, _, fs in os.walk(path) for f in fs if f.endswith('.rs')]
    for file in files:
        text = open(file).read()
        for name, store in re.findall(r'view!\s*\{[^}]*?\b(\w+)\s+over\s+(\w+)\s*\}', text, re.S):
            views += 1
            has = groups.get(store, {store})
            if has != own:
                broken.append('%s: view %s is over %s, but %s owns %s' % (file, name, ', '.join(sorted(has)), top, ', '.join(sorted(own)) or 'no store'))
        code = text.split('#[cfg(test)]')[0]
        for n, line in enumerate(code.split('\n'), 1):
            if re.search(r'\.\s*storage\s*\(\s*\)', line) and not line.strip().startswith('//'):
                broken.append('%s:%d: calls Studio::storage(), which hands out every store' % (file, n))
        for name in re.findall(r'\bstore\s*\.\s*(\w+)\s*\(', code):
            trait = trait_of.get(name)
            if trait and trait not in own:
                broken.append('%s: %s reaches %s::%s' % (file, top, trait, name))

if views < len(OWN) - 1:
    broken.append('only %d view! declarations found: has the macro changed?' % views)
for b in broken:
    print('store reach:', b)
print('%d views of %d domains checked against their own stores, %d breaches' % (views, len(OWN), len(broken)))
sys.exit(1 if broken else 0)
