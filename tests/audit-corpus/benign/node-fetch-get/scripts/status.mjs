const r = await fetch('https://status.example.com/api/v2/status.json');
console.log((await r.json()).status.description);
