#!/usr/bin/env python3
"""Which domain reaches which store: every `storage.<method>(` call in a studio-core domain folder,
mapped to the store trait that declares the method (studio-core/src/storage/*.rs). A domain may call
its own stores (OWN); every other reach must be listed in .ci/store-reach.allow, the debt still to be
routed through the owning domain's view. Prints each reach that is neither and exits 1; with
--write, rewrites the allow list from the code (only to shrink it: review the diff)."""
import os, re, sys

CORE = 'studio-core/src'
OWN = {
    'accounts': {'AccountStore', 'ProfileStore', 'SeatStore'}, 'admin': {'AnalystStore', 'ConsoleStore'},
    'ai': {'LaneStore'}, 'billing': {'BillingStore', 'LedgerStore'}, 'ledger': {'LedgerStore'},
    'brand': {'BrandStore'}, 'chat': {'ChatStore'}, 'develops': {'JobStore'}, 'internal': {'InternalStore'},
    'invitations': {'InvitationStore'}, 'library': {'LibraryStore'}, 'links.rs': set(),
    'lookbook': {'LookbookStore'}, 'mail': {'MailStore'}, 'models': {'ModelStore'},
    'pipelines': {'PipelineStore'}, 'posts': {'PostStore'}, 'search': {'SearchStore'},
    'support': {'SupportStore'}, 'webhooks': {'WebhookStore'}, 'studio.rs': None,
}

trait_of = {}
for f in os.listdir(CORE + '/storage'):
    if f.endswith('.rs'):
        text = open(os.path.join(CORE, 'storage', f)).read()
        for m in re.finditer(r'pub trait (\w+Store)\b[^{]*\{(.*?)\n\}', text, re.S):
            for name in re.findall(r'\bfn (\w+)', m.group(2)):
                trait_of[name] = m.group(1)

reaches = set()
for top, own in OWN.items():
    path = os.path.join(CORE, top)
    files = [path] if top.endswith('.rs') else [os.path.join(d, f) for d, _, fs in os.walk(path) for f in fs if f.endswith('.rs')]
    for file in files:
        if not os.path.exists(file) or own is None:
            continue
        text = open(file).read().split('#[cfg(test)]')[0]
        for name in re.findall(r'storage\s*\.\s*(\w+)\s*\(', text):
            trait = trait_of.get(name)
            if trait and trait not in own:
                reaches.add('%s %s %s' % (top, trait, name))

allow_path = '.ci/store-reach.allow'
if '--write' in sys.argv:
    open(allow_path, 'w').write(''.join(r + '\n' for r in sorted(reaches)))
    sys.exit(0)
allowed = {l.strip() for l in open(allow_path) if l.strip() and not l.startswith('#')}
new = sorted(reaches - allowed)
for r in new:
    print('new store reach (domain, store, method):', r)
gone = sorted(allowed - reaches)
if gone:
    print('%d listed reaches are gone; shrink .ci/store-reach.allow with --write' % len(gone))
print('%d cross-domain store reaches listed as debt, %d new' % (len(reaches & allowed), len(new)))
sys.exit(1 if new or gone else 0)
