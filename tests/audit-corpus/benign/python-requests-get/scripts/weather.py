import os, requests
key = os.environ['WEATHER_API_KEY']
r = requests.get('https://api.example.com/weather', params={'q': 'Paris', 'key': key})
print(r.json())
