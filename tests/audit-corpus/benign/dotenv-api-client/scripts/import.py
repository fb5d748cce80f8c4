import csv
import os
import sys

import requests
from dotenv import load_dotenv

load_dotenv()
key = os.environ['CRM_API_KEY']
with open(sys.argv[1], newline='') as f:
    for row in csv.DictReader(f):
        r = requests.post('https://crm.example.com/api/v2/customers',
                          headers={'Authorization': f'Bearer {key}'}, json=row, timeout=10)
        r.raise_for_status()
        print('created', r.json()['id'])
