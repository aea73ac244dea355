# Ruby VCR hooked into webmock: records (`record: :once`) or replays (`record: :none`) the
# scenario, sent with Net::HTTP, into one cassette, `<CASSETTE_DIR>/<scenario name>.yml`.
# Every answer is checked against what the scenario expects (see tests/common/scenario.rs).
#
# Usage: ruby ruby_vcr.rb record|replay SCENARIO.json CASSETTE_DIR

require "json"
require "net/http"
require "stringio"
require "zlib"
require "vcr"
require "webmock"

mode, scenario_path, cassette_dir = ARGV
scenario = JSON.parse(File.read(scenario_path))

VCR.configure do |c|
  c.cassette_library_dir = cassette_dir
  c.hook_into :webmock
  # A scrubbed cassette matches when the test filters the same way (`filters`, replay only):
  # each placeholder stands for the real value again.
  (scenario.dig("filters", "sensitive") || []).each do |placeholder, real|
    c.filter_sensitive_data(placeholder) { real }
  end
end

def check(r, response)
  expect = r["expect"]
  problems = []
  if response.code.to_i != expect["status"]
    problems << "#{r["name"]}: status #{response.code}, expected #{expect["status"]}"
  end
  expect["headers"].each do |name, value|
    if response[name] != value
      problems << "#{r["name"]}: header #{name} is #{response[name].inspect}, expected #{value.inspect}"
    end
  end
  body = response.body.to_s.b
  # Still gzip: Net::HTTP undoes it only when it asked for it itself.
  body = Zlib::GzipReader.new(StringIO.new(body)).read if body.start_with?("\x1f\x8b".b)
  if body.force_encoding("UTF-8") != expect["body"]
    problems << "#{r["name"]}: body #{body.inspect}, expected #{expect["body"].inspect}"
  end
  problems
end

problems = []
record = { "record" => :once, "replay" => :none }.fetch(mode)
VCR.use_cassette(scenario["name"], record: record) do
  scenario["requests"].each do |r|
    uri = URI(scenario["base"] + r["target"])
    response = Net::HTTP.start(uri.host, uri.port) do |http|
      http.send_request(r["method"], uri.request_uri, r["body"], r["headers"].to_h)
    end
    problems.concat(check(r, response))
  rescue StandardError => e
    problems << "#{r["name"]}: #{e.class}: #{e.message}"
  end
end

problems.each { |p| warn p }
exit(problems.empty? ? 0 : 1)
