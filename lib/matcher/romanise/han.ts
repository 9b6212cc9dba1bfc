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

import { createRequire } from 'node:module';

type PinyinPro = typeof import('pinyin-pro');
let pinyinPro: PinyinPro | undefined;

/**
 * pinyin-pro, loaded at the first name written in Han: its dictionary is about 3.5 MB of heap and
 * 25 ms of start-up that a Latin-script screen never needs. A bundler turns the literal `require`
 * into its own lazily evaluated copy of the package; Node's ES modules (tsx, vitest) have no
 * `require`, so one is made there.
 */
function loadPinyinPro(): PinyinPro {
  pinyinPro ??= (
    typeof require === 'function' ? require('pinyin-pro') : createRequire(import.meta.url)('pinyin-pro')
  ) as PinyinPro;
  return pinyinPro;
}

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
/** A longer unbroken run of Han is a foreign name written in Chinese characters. */
const FOREIGN_RUN_RE = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{5,}/;

/**
 * Characters that Chinese renderings of foreign (chiefly Russian and English) names use for a
 * sound pinyin spells otherwise, with the sound they stand for, after the Xinhua transcription
 * tables: 夫 is the "-ov" of a Russian surname, 尔 a bare r, 奇 the "-ich" of a patronymic, 科 "ko".
 * Other characters keep their pinyin.
 */
const TRANSCRIPTION: Record<string, string> = {
  夫: 'v',
  弗: 'f',
  尔: 'r',
  特: 't',
  德: 'd',
  克: 'k',
  格: 'g',
  斯: 's',
  茨: 'ts',
  兹: 'z',
  姆: 'm',
  赫: 'kh',
  什: 'sh',
  奇: 'ch',
  契: 'ch',
  维: 'vi',
  伊: 'i',
  戈: 'go',
  奥: 'o',
  列: 'le',
  科: 'ko',
  波: 'po',
  罗: 'ro',
  诺: 'no',
  托: 'to',
  多: 'do',
  索: 'so',
  沃: 'vo',
  瓦: 'va',
  娃: 'va',
  谢: 'se',
  季: 'di',
  基: 'ki',
  丘: 'chu',
  佩: 'pe',
  捷: 'te',
  鲍: 'bo',
  霍: 'kho',
  佐: 'zo',
  欧: 'o',
  涅: 'ne',
  梅: 'me',
  别: 'be',
  热: 'zh',
};
/** Endings of Russian surnames (夫 -ov, 娃 -ova): the name's next part starts after them. */
const SURNAME_ENDINGS = new Set(['夫', '娃']);

/**
 * Whether `text` is a foreign name written in Han: parts separated by a middle dot, or a run of
 * Han longer than a Chinese name. Its romanisation is a guess at the foreign spelling.
 */
export function isForeignHanName(text: string): boolean {
  return FOREIGN_NAME_SEPARATOR_RE.test(text) || FOREIGN_RUN_RE.test(text);
}

/** One part of a foreign name in Han: the transcription sounds, split after a surname ending. */
function transcribeForeign(run: string): string {
  const readings = loadPinyinPro().pinyin(run, { toneType: 'none', type: 'array' });
  let out = '';
  for (let i = 0; i < run.length; i++) {
    out += TRANSCRIPTION[run[i]] ?? readings[i] ?? '';
    if (SURNAME_ENDINGS.has(run[i]) && i <= run.length - 3) out += ' ';
  }
  return out.toLowerCase();
}

function syllables(text: string, surname: boolean): string {
  return loadPinyinPro()
    .pinyin(text, { toneType: 'none', type: 'array', surname: surname ? 'head' : 'off' })
    .join('')
    .toLowerCase();
}

/**
 * Romanises every run of Han characters in `text` (one name). A foreign name (see
 * `isForeignHanName`) is transcribed part by part; otherwise a run that is the whole name, of two
 * to four characters, is read as surname + given name, and any other run (one word of a name
 * written with spaces) becomes one word.
 */
export function romaniseHan(text: string): string {
  if (isForeignHanName(text)) return text.replace(HAN_RUN_RE, (run) => ` ${transcribeForeign(run)} `);
  const words = text.trim().split(/\s+/);
  const wholeName = words.length === 1;
  return text.replace(HAN_RUN_RE, (run, at: number) => {
    const alone = wholeName && at === text.indexOf(run) && run.length === words[0].length;
    if (alone && run.length >= 2 && run.length <= CHINESE_NAME_MAX) {
      const surnameLength = COMPOUND_SURNAMES.has(run.slice(0, 2)) && run.length >= 3 ? 2 : 1;
      const surname = syllables(run.slice(0, surnameLength), true);
      const given = syllables(run.slice(surnameLength), false);
      return ` ${surname} ${given} `;
    }
    return ` ${syllables(run, true)} `;
  });
}
