import { loadSnapshot } from './lib/watchlists/snapshot.ts';
import { buildIndex } from './lib/matcher/index.ts';
const idx = buildIndex(loadSnapshot());
const names = idx.names.filter(n => /putin/i.test(n.display));
for (const n of names) console.log(n.display, idx.people[n.person].category, idx.people[n.person].person.list_id);
