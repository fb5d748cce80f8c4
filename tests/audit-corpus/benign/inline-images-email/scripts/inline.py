import base64
import pathlib
import re
import sys

page = pathlib.Path(sys.argv[1])
html = page.read_text()

def inline(m):
    data = base64.b64encode((page.parent / m.group(1)).read_bytes()).decode()
    return f'src="data:image/png;base64,{data}"'

page.write_text(re.sub(r'src="([^"]+\.png)"', inline, html))
