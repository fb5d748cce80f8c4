import re
import sys

STRIP = re.compile('[\u200b\u2060\u202a-\u202e\u2066-\u2069\U000e0000-\U000e007f]|(?<!^)\ufeff')
for path in sys.argv[1:]:
    text = open(path, encoding='utf-8').read()
    for m in STRIP.finditer(text):
        line = text.count('\n', 0, m.start()) + 1
        print(f'{path}:{line}: U+{ord(m.group()):04X}')
    open(path, 'w', encoding='utf-8').write(STRIP.sub('', text))
