package sqlite

import (
	"strings"

	"github.com/mnemon-dev/mnemon/memory"
)

// The default namespace as stored (migration 0029, issue 22). Every row
// and nearly every index entry begins with its namespace, about fifteen
// B-tree entries a note; a store that one user fills through the CLI,
// serve or mcp without naming a namespace holds "default" in each of them
// (7 bytes, ~1 MB at 10,000 notes). It is stored as the empty text, which takes no
// bytes and which no namespace can be (ValidateNamespace wants 1-64
// characters); any other namespace is stored as it is. The form is a
// function of the name alone, like an id's (ids.go), so equal namespaces
// are equal values in every table, index, join and trigger.
//
// A statement says which of its parameters are namespaces with a marker
// right before the parameter, `namespace = /*ns*/?`; executor.query and
// exec bind those through nsArg, and the decoders read the column back
// through nsName. TestNamespaceParamsMarked refuses a statement that
// compares a namespace column to an unmarked parameter.
const nsMark = "/*ns*/"

// nsArg is ns as stored.
func nsArg(ns string) string {
	if ns == memory.DefaultNamespace {
		return ""
	}
	return ns
}

// nsName is the namespace a stored value names.
func nsName(stored string) string {
	if stored == "" {
		return memory.DefaultNamespace
	}
	return stored
}

// bindNamespaces puts every parameter q marks as a namespace into its
// stored form, in args itself, and returns args: a copy would cost more
// than the rest of the binding (1.5 against 0.12 µs for the version
// insert). Every caller builds args for the one statement, and the stored
// form of a stored form is itself, so a slice bound twice is still right.
func bindNamespaces(q string, args []any) []any {
	at := strings.Index(q, nsMark)
	for at >= 0 {
		if i := nsParam(q, at); i >= 0 && i < len(args) {
			if s, ok := args[i].(string); ok && s == memory.DefaultNamespace {
				args[i] = ""
			}
		}
		next := strings.Index(q[at+len(nsMark):], nsMark)
		if next < 0 {
			break
		}
		at += len(nsMark) + next
	}
	return args
}

// nsParam is the index (from 0) of the parameter right after the marker at
// q[at:]: ?N names the N-th; a plain ? is the one after the plain ones
// before it (a statement does not mix the two). -1 if no parameter
// follows the marker.
func nsParam(q string, at int) int {
	rest := q[at+len(nsMark):]
	if !strings.HasPrefix(rest, "?") {
		return -1
	}
	n, digits := 0, 0
	for _, c := range []byte(rest[1:]) {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
		digits++
	}
	if digits > 0 {
		return n - 1
	}
	return strings.Count(q[:at], "?")
}

// ns reads a namespace column.
func (d *decoder) ns() string { return nsName(d.sym()) }
