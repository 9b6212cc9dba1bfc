/**
 * Han characters (Chinese names, and Chinese renderings of foreign names) → pinyin, written the way
 * the lists write Chinese names: the surname apart, the given name's syllables joined into one word
 * ("习近平" → "xi jinping", listed "XI Jinping"), without tones.
 *
 * Readings come from `pinyin-pro` (https://github.com/zh-lx/pinyin-pro), a maintained dictionary of
 * Mandarin readings that chooses a character's reading from its context and reads a name's first
 * character as a surname where that reading differs (单 shan, 朴 piao); a character table alone
 * would get those wrong.
 */

import { pinyin } from 'pinyin-pro';

/** Han ideographs: the CJK unified blocks and compatibility ideographs. */
export const HAN_RE = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/;
const HAN_RUN_RE = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+/g;

/**
 * Middle dots that separate the parts of a foreign name written in Han or kana ("弗拉基米尔·普京",
 * Vladimir Putin): each part is one name word.
 */
export const FOREIGN_NAME_SEPARATOR_RE = /[\u00b7\u2027\u30fb\u2022\uff65\u318d]/;

/**
 * Two-character surnames: the name's first two characters are then the surname, one word as the
 * lists write it ("OUYANG", "SIMA"). The compound surnames of the Hundred Family Surnames still in
 * use, simplified and traditional forms.
 */
const COMPOUND_SURNAMES = new Set(
  (
    '欧阳 歐陽 司马 司馬 诸葛 諸葛 上官 东方 東方 皇甫 尉迟 尉遲 公孙 公孫 慕容 长孙 長孫 宇文 司徒 夏侯 ' +
    '令狐 端木 南宫 南宮 西门 西門 独孤 獨孤 澹台 澹臺 轩辕 軒轅 申屠 太史 司空 闻人 聞人 钟离 鍾離 ' +
    '呼延 赫连 赫連 濮阳 濮陽 公羊 万俟 萬俟'
  ).split(' '),
);

/** A whole name of one unbroken run of Han: a Chinese name of surname and given name. */
const CHINESE_NAME_MAX = 4;

function syllables(text: string, surname: boolean): string {
  return pinyin(text, { toneType: 'none', type: 'array', surname: surname ? 'head' : 'off' })
    .join('')
    .toLowerCase();
}

/**
 * Romanises every run of Han characters in `text` (already split by the caller into one name:
 * words separated by spaces, foreign-name parts by a middle dot). A run that is a whole name of two
 * to four characters is read as surname + given name; any other run (one word of a name written
 * with spaces, one part of a foreign name) becomes one word.
 */
export function romaniseHan(text: string): string {
  const words = text.trim().split(/\s+/);
  const foreign = FOREIGN_NAME_SEPARATOR_RE.test(text);
  const wholeName = !foreign && words.length === 1;
  return text.replace(HAN_RUN_RE, (run, at: number) => {
    const alone = wholeName && at === text.indexOf(run) && run.length === words[0].length;
    if (alone && run.length >= 2 && run.length <= CHINESE_NAME_MAX) {
      const surnameLength = COMPOUND_SURNAMES.has(run.slice(0, 2)) && run.length >= 3 ? 2 : 1;
      const surname = syllables(run.slice(0, surnameLength), true);
      const given = syllables(run.slice(surnameLength), false);
      return ` ${surname} ${given} `;
    }
    return ` ${syllables(run, !foreign)} `;
  });
}
