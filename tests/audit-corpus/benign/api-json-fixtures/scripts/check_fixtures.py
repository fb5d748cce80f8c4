import json
import pathlib

for p in pathlib.Path('tests/fixtures').glob('*.json'):
    data = json.loads(p.read_text())
    for o in data.get('orders', []):
        assert o['id'] and o['status'] and o['items'], (p, o)
    print(p, 'ok')
