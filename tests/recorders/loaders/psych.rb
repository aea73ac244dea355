# Psych as Ruby VCR uses it, for tests/common/loaders.rs.
#
#   ruby psych.rb load   paths on stdin, one a line; prints a JSON array: {"ok": data} or
#                        {"error": message} per file
#   ruby psych.rb dump   a JSON array of {"path", "data"} on stdin; writes each with to_yaml,
#                        {"$binary": base64} as a binary (ASCII-8BIT) string
#
# Loading is YAML.unsafe_load, as Ruby VCR's YAML serializer does. A binary string is
# {"$binary": base64}, a Time or Date {"$timestamp": text}, a Symbol {"$symbol": name}, NaN and
# infinities {"$float": text}, a mapping with keys that are not strings {"$map": [[k, v]...]}.
require "base64"
require "date"
require "json"
require "yaml"

def plain(value)
  case value
  when String
    if value.encoding == Encoding::ASCII_8BIT
      { "$binary" => Base64.strict_encode64(value) }
    else
      value
    end
  when Time, Date then { "$timestamp" => value.to_s }
  when Symbol then { "$symbol" => value.to_s }
  when Float then value.finite? ? value : { "$float" => value.to_s }
  when Hash
    if value.keys.all? { |k| k.is_a?(String) }
      value.to_h { |k, v| [k, plain(v)] }
    else
      { "$map" => value.map { |k, v| [plain(k), plain(v)] } }
    end
  when Array then value.map { |v| plain(v) }
  else value
  end
end

def unplain(value)
  case value
  when Hash
    if value.keys == ["$binary"]
      Base64.strict_decode64(value["$binary"]).force_encoding(Encoding::ASCII_8BIT)
    else
      value.to_h { |k, v| [k, unplain(v)] }
    end
  when Array then value.map { |v| unplain(v) }
  else value
  end
end

if ARGV[0] == "load"
  out = $stdin.read.split("\n").map do |path|
    load = YAML.respond_to?(:unsafe_load) ? :unsafe_load : :load
    { "ok" => plain(YAML.public_send(load, File.read(path))) }
  rescue StandardError, Psych::Exception => e
    { "error" => "#{e.class}: #{e.message}" }
  end
  $stdout.write(JSON.generate(out))
else
  JSON.parse($stdin.read).each do |item|
    File.write(item["path"], unplain(item["data"]).to_yaml)
  end
end
