import { loadSnapshot } from './lib/watchlists/snapshot.ts';
import { createMatcher } from './lib/matcher/screen.ts';
const m = createMatcher(loadSnapshot());
console.log(JSON.stringify(m.screen({name:'Putin'},['sanctions','criminal']).sanctions_result?.matches.map(x=>[x.primary_name,x.name_score])));
console.log(JSON.stringify(m.screen({name:'Putin Vladimir'},['sanctions']).sanctions_result?.matches.map(x=>[x.primary_name,x.name_score])));
