import os

path = os.path.expanduser('~/.ssh/config')
host = None
with open(path) as f:
    for line in f:
        parts = line.strip().split(None, 1)
        if len(parts) != 2:
            continue
        key, value = parts[0].lower(), parts[1]
        if key == 'host':
            host = value
        elif key == 'hostname' and host:
            print(f'{host:20} {value}')
