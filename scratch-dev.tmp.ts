import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { compareNames } from './lib/matcher/score.ts';
const rows = parse(readFileSync('/work/shared/eval/pairs/nomenklatura-name-bench/cases.csv'), { columns: true }) as Record<string,string>[];
const groups = process.argv[2] === 'held' ? ['nk_checks','synth_people'] : ['nk_unit_tests','cluster_align'];
const show = process.argv[3] === 'show';
const ps = rows.filter(r => r.schema === 'Person' && groups.includes(r.case_group));
for (const t of [0.7,0.75,0.8,0.85]) {
  let tp=0,fp=0,fn=0,tn=0;
  for (const r of ps) { const s = compareNames(r.name1, r.name2); const p = s>=t; const m = r.is_match==='true';
    if (p&&m) tp++; else if (p&&!m) fp++; else if (!p&&m) fn++; else tn++;
    if (show && t===0.8 && p!==m) console.log(m?'FN':'FP', s.toFixed(3), r.name1, '|', r.name2); }
  const P=tp/(tp+fp), R=tp/(tp+fn); console.log(t, 'P',P.toFixed(3),'R',R.toFixed(3),'F1',(2*P*R/(P+R)).toFixed(3), ps.length);
}
