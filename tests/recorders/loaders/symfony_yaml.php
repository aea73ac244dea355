<?php
// php-vcr's loaders, for tests/common/strict_loaders.rs: Symfony's YAML parser (the
// component php-vcr's YAML storage reads with) for YAML, json_decode for its JSON storage.
//
//     php symfony_yaml.php    paths on stdin, one a line; prints a JSON array: {"ok": data} or
//                             {"error": message} per file
//
// A file whose first character (after white space) is `[` is php-vcr's JSON storage.
require 'Symfony/Component/Yaml/autoload.php';

use Symfony\Component\Yaml\Yaml;

$out = [];
foreach (explode("\n", trim(stream_get_contents(STDIN))) as $path) {
    if ($path === '') {
        continue;
    }
    try {
        $text = file_get_contents($path);
        if ($text === false) {
            throw new RuntimeException("cannot read $path");
        }
        $data = ltrim($text)[0] === '['
            ? json_decode($text, true, 512, JSON_THROW_ON_ERROR)
            : Yaml::parse($text);
        $out[] = ['ok' => $data];
    } catch (Throwable $e) {
        $out[] = ['error' => $e->getMessage()];
    }
}
echo json_encode($out, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_PRESERVE_ZERO_FRACTION | JSON_INVALID_UTF8_SUBSTITUTE);
