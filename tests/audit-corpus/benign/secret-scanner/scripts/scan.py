import pathlib
import re
import subprocess

SENSITIVE_NAMES = {'id_rsa', 'id_ed25519', '.env', 'credentials', '.npmrc', '.pypirc'}
PATTERNS = {
    'aws access key': re.compile(r'AKIA[0-9A-Z]{16}'),
    'github token': re.compile(r'gh[pousr]_[A-Za-z0-9]{36}'),
    'private key': re.compile(r'-----BEGIN [A-Z ]*PRIVATE KEY-----'),
}
files = subprocess.run(['git', 'ls-files'], capture_output=True, text=True, check=True).stdout.split()
for name in files:
    p = pathlib.Path(name)
    if p.name in SENSITIVE_NAMES:
        print(f'{name}: sensitive file name')
    try:
        text = p.read_text(errors='ignore')
    except OSError:
        continue
    for label, rx in PATTERNS.items():
        for m in rx.finditer(text):
            print(f'{name}: {label} {m.group()[:6]}...')
