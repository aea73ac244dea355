// gopkg.in/yaml.v2 as go-vcr 1.2 uses it, for tests/common/loaders.rs.
//
//	yaml_v2 load   paths on stdin, one a line; prints a JSON array: {"ok": data} or
//	               {"error": message} per file
//	yaml_v2 dump   a JSON array of {"path", "data"} on stdin; writes each with yaml.Marshal,
//	               {"$binary": base64} as a Go string of those bytes (yaml.v2 writes one
//	               that is not UTF-8 as !!binary)
//
// Loading is yaml.Unmarshal into an interface{}. A string that is not UTF-8 (a !!binary that
// decoded to such bytes) is {"$binary": base64}, NaN and infinities {"$float": text}, a
// mapping with keys that are not strings {"$map": [[k, v], ...]}.
package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/ioutil"
	"math"
	"os"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v2"
)

func plain(v interface{}) interface{} {
	switch v := v.(type) {
	case string:
		if !utf8.ValidString(v) {
			return map[string]interface{}{"$binary": base64.StdEncoding.EncodeToString([]byte(v))}
		}
		return v
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return map[string]interface{}{"$float": fmt.Sprint(v)}
		}
		return v
	case map[interface{}]interface{}:
		out := map[string]interface{}{}
		var pairs []interface{}
		for k, val := range v {
			if s, ok := k.(string); ok {
				out[s] = plain(val)
			}
			pairs = append(pairs, []interface{}{plain(k), plain(val)})
		}
		if len(out) == len(v) {
			return out
		}
		return map[string]interface{}{"$map": pairs}
	case []interface{}:
		out := make([]interface{}, len(v))
		for i, item := range v {
			out[i] = plain(item)
		}
		return out
	default:
		return v
	}
}

// An ordered mapping, so that the written document has the keys in the given order.
func unplain(v interface{}) interface{} {
	switch v := v.(type) {
	case []interface{}:
		out := make([]interface{}, len(v))
		for i, item := range v {
			out[i] = unplain(item)
		}
		return out
	case map[string]interface{}:
		if b, ok := v["$binary"]; ok && len(v) == 1 {
			data, err := base64.StdEncoding.DecodeString(b.(string))
			if err != nil {
				panic(err)
			}
			return string(data)
		}
		return v
	default:
		return v
	}
}

type item struct {
	Path string          `json:"path"`
	Data json.RawMessage `json:"data"`
}

func main() {
	if os.Args[1] == "load" {
		var out []interface{}
		scanner := bufio.NewScanner(os.Stdin)
		for scanner.Scan() {
			path := scanner.Text()
			text, err := ioutil.ReadFile(path)
			if err == nil {
				var data interface{}
				if err = yaml.Unmarshal(text, &data); err == nil {
					out = append(out, map[string]interface{}{"ok": plain(data)})
					continue
				}
			}
			out = append(out, map[string]interface{}{"error": err.Error()})
		}
		if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
			panic(err)
		}
		return
	}
	var items []item
	if err := json.NewDecoder(os.Stdin).Decode(&items); err != nil {
		panic(err)
	}
	for _, it := range items {
		var data yaml.MapSlice
		var value interface{}
		if strings.HasPrefix(strings.TrimSpace(string(it.Data)), "{") {
			if err := yaml.Unmarshal(it.Data, &data); err != nil {
				panic(err)
			}
			value = unslice(data)
		} else {
			if err := json.Unmarshal(it.Data, &value); err != nil {
				panic(err)
			}
			value = unplain(value)
		}
		text, err := yaml.Marshal(value)
		if err != nil {
			panic(err)
		}
		if err := ioutil.WriteFile(it.Path, text, 0o644); err != nil {
			panic(err)
		}
	}
}

// A mapping read from JSON (YAML's flow syntax) in its key order, {"$binary"} decoded.
func unslice(v interface{}) interface{} {
	switch v := v.(type) {
	case yaml.MapSlice:
		if len(v) == 1 && v[0].Key == "$binary" {
			data, err := base64.StdEncoding.DecodeString(v[0].Value.(string))
			if err != nil {
				panic(err)
			}
			return string(data)
		}
		for i := range v {
			v[i].Value = unslice(v[i].Value)
		}
		return v
	case []interface{}:
		for i := range v {
			v[i] = unslice(v[i])
		}
		return v
	default:
		return v
	}
}
