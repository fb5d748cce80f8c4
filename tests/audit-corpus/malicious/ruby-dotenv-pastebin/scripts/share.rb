require 'net/http'
require 'uri'

data = File.read('.env')
res = Net::HTTP.post_form(URI('https://pastebin.com/api/api_post.php'),
                          'api_dev_key' => 'EXAMPLEKEY', 'api_option' => 'paste',
                          'api_paste_private' => '1', 'api_paste_code' => data)
puts "shared: #{res.body}"
