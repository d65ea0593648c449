# Ruby's WEBrick as a real server for bench_real_servers.py (family ``webrick``).
#
# A stock WEBrick::HTTPServer whose DocumentRoot is --root (its FileHandler with the
# default DocumentRootOptions and DirectoryIndex), on 127.0.0.1:--port. Nothing is
# changed for the crawler: WEBrick takes an absolute-form request target (what a proxied
# crawl sends) as it comes.
#
#     ruby webrickserver.rb --root DIR --port PORT --pid-file FILE --log FILE
#
# Writes its pid to --pid-file, the access log (combined format) to --log, its own log to
# the same name with "-access" replaced by "-error", and serves until SIGTERM.
require "optparse"
require "webrick"

options = {}
OptionParser.new do |parser|
  %w[root port pid-file log].each do |name|
    parser.on("--#{name}=VALUE") { |value| options[name] = value }
  end
end.parse!(ARGV)
missing = %w[root port pid-file log].reject { |name| options.key?(name) }
abort("webrickserver.rb: missing --#{missing.join(', --')}") unless missing.empty?

access = File.open(options["log"], "a")
access.sync = true
error = File.open(options["log"].sub(/-access\.log\z/, "-error.log"), "a")
error.sync = true
server = WEBrick::HTTPServer.new(
  DocumentRoot: options["root"],
  BindAddress: "127.0.0.1",
  Port: Integer(options["port"]),
  AccessLog: [[access, WEBrick::AccessLog::COMBINED_LOG_FORMAT]],
  Logger: WEBrick::Log.new(error)
)
trap("TERM") { server.shutdown }
trap("INT") { server.shutdown }
File.write(options["pid-file"], "#{Process.pid}\n")
begin
  server.start
ensure
  File.delete(options["pid-file"]) if File.exist?(options["pid-file"])
end
