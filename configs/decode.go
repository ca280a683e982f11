package configs

// Typed reads of decoded TOML values. The file is first decoded into generic
// maps (so every key's line can be found, see lines.go); these helpers turn
// one value into the Go type its key wants, or say what was written instead.

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
)

// tomlType names the TOML type of a decoded value, for error messages.
func tomlType(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case time.Time:
		return "a date-time"
	case []map[string]any:
		return "an array of tables"
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return fmt.Sprintf("a %T", v)
}

// asString wants a TOML string.
func asString(v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("want a string, got %s", tomlType(v))
	}
	return s, nil
}

// asBool wants a TOML boolean.
func asBool(v any) (bool, error) {
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("want true or false, got %s", tomlType(v))
	}
	return b, nil
}

// asCount wants a TOML integer that is zero or more and fits an int32.
func asCount(v any) (int, error) {
	n, ok := v.(int64)
	if !ok {
		return 0, fmt.Errorf("want an integer, got %s", tomlType(v))
	}
	if n < 0 || n > math.MaxInt32 {
		return 0, fmt.Errorf("%d is out of range (0 to %d)", n, math.MaxInt32)
	}
	return int(n), nil
}

// asDuration wants a TOML string in time.ParseDuration form (see Duration).
func asDuration(v any) (Duration, error) {
	s, ok := v.(string)
	if !ok {
		return Duration{}, fmt.Errorf("want a duration string like \"400ms\" or \"2h\", got %s", tomlType(v))
	}
	var d Duration
	if err := d.UnmarshalText([]byte(s)); err != nil {
		return Duration{}, err
	}
	return d, nil
}

// asStrings wants a TOML array of strings (possibly empty). Blank entries
// are refused unless allowBlank.
func asStrings(v any, allowBlank bool) ([]string, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("want an array of strings like [\"a\", \"b\"], got %s", tomlType(v))
	}
	out := make([]string, 0, len(arr))
	for i, e := range arr {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("element %d: want a string, got %s", i, tomlType(e))
		}
		if !allowBlank && strings.TrimSpace(s) == "" {
			return nil, fmt.Errorf("element %d is blank", i)
		}
		out = append(out, s)
	}
	return out, nil
}

// asCommand wants a non-empty array of strings whose first element (the
// program) is not blank and whose elements hold no NUL byte.
func asCommand(v any) ([]string, error) {
	if s, ok := v.(string); ok && strings.TrimSpace(s) != "" {
		words := strings.Fields(s)
		for i, w := range words {
			words[i] = fmt.Sprintf("%q", w)
		}
		return nil, fmt.Errorf("want an array of strings like [%s], got a string", strings.Join(words, ", "))
	}
	cmd, err := asStrings(v, true)
	if err != nil {
		return nil, err
	}
	if len(cmd) == 0 {
		return nil, fmt.Errorf("empty command: want [\"program\", \"arg\", ...]")
	}
	if strings.TrimSpace(cmd[0]) == "" {
		return nil, fmt.Errorf("the program (element 0) is blank")
	}
	for i, s := range cmd {
		if strings.ContainsRune(s, 0) {
			return nil, fmt.Errorf("element %d holds a NUL byte", i)
		}
	}
	return cmd, nil
}

// asEnv wants a TOML table of string values keyed by valid variable names.
func asEnv(v any) (map[string]string, error) {
	t, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("want a table of strings like { NAME = \"value\" }, got %s", tomlType(v))
	}
	out := make(map[string]string, len(t))
	for _, k := range slices.Sorted(maps.Keys(t)) {
		if err := checkEnvName(k); err != nil {
			return nil, err
		}
		s, ok := t[k].(string)
		if !ok {
			return nil, fmt.Errorf("%s: want a string, got %s", k, tomlType(t[k]))
		}
		if strings.ContainsRune(s, 0) {
			return nil, fmt.Errorf("%s: value holds a NUL byte", k)
		}
		out[k] = s
	}
	return out, nil
}

// asEnvNames wants a TOML array of valid environment variable names.
func asEnvNames(v any) ([]string, error) {
	names, err := asStrings(v, false)
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		if err := checkEnvName(n); err != nil {
			return nil, err
		}
	}
	return names, nil
}

// checkEnvName refuses names an environment cannot hold: empty, or with '='
// or a NUL byte.
func checkEnvName(name string) error {
	if name == "" || strings.ContainsAny(name, "=\x00") {
		return fmt.Errorf("%q is not a valid environment variable name", name)
	}
	return nil
}
