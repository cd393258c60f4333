package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/internal/ids"
	"github.com/mnemon-dev/mnemon/memory"
)

// usageError is a wrong call: exit status 2 and a hint.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// failure is an error already phrased for the user: describe prints it as
// it is, with its exit status.
type failure struct {
	msg  string
	code int
	err  error // the cause, for errors.Is
}

func (e *failure) Error() string { return e.msg }
func (e *failure) Unwrap() error { return e.err }

// interrupted is returned when the context was cancelled (Ctrl-C); detail
// says what was committed before.
type interrupted struct{ detail string }

func (e *interrupted) Error() string { return "interrupted" }

// describe turns an error into one line that says what is wrong and what to
// do, and the exit status: 1 failure, 2 wrong call, 130 interrupted.
func describe(ctx context.Context, err error) (string, int) {
	var (
		ue *usageError
		fe *failure
		ie *interrupted
	)
	switch {
	case errors.As(err, &ie):
		if ie.detail != "" {
			return "interrupted: " + ie.detail, 130
		}
		return "interrupted", 130
	case ctx.Err() != nil:
		// Whatever failed, it failed because the user stopped it; a command
		// that writes commits whole or not at all.
		return "interrupted; nothing more was written", 130
	case errors.As(err, &ue):
		return ue.msg, 2
	case errors.As(err, &fe):
		return fe.msg, fe.code
	}
	msg := err.Error()
	var pe *memory.Error
	if errors.As(err, &pe) {
		// Phrased for the caller where it was found, without the
		// operations it passed through.
		msg = pe.Message
	}
	switch {
	case errors.Is(err, memory.ErrInvalid):
		return msg, 2
	case errors.Is(err, memory.ErrCorrupt):
		if !strings.Contains(msg, "move it aside") {
			msg += "; point --db at a mnemon database, or move the file aside to start a new one"
		}
	case errors.Is(err, memory.ErrSchemaTooNew):
		if !strings.Contains(msg, "upgrade mnemon") {
			msg += "; upgrade mnemon to open it"
		}
	case errors.Is(err, memory.ErrReadOnly):
		return msg, 1
	case errors.Is(err, memory.ErrStorageFull):
		return "nothing was stored: the disk holding the database is full; free some space and run it again", 1
	case errors.Is(err, memory.ErrNotFound):
		msg += "; list ids with 'mnemon facts --history'"
	case errors.Is(err, memory.ErrModelUnavailable), errors.Is(err, memory.ErrModelBadReply):
		msg += "; nothing was stored ('mnemon doctor' checks the model provider)"
	}
	return msg, 1
}

// openFailed phrases a failure to open the database at path.
func openFailed(path string, err error) error {
	abs, aerr := filepath.Abs(path)
	if aerr != nil {
		abs = path
	}
	if fi, serr := os.Stat(abs); serr == nil && fi.IsDir() {
		return usagef("the database path %s is a directory; name a file, e.g. --db %s", abs, filepath.Join(abs, "mnemon.db"))
	}
	// The store phrases what is wrong with the file for the person who
	// chose it; any other error is told by its root cause, without the
	// operations it passed through.
	var pe *memory.Error
	cause := rootCause(err).Error()
	if errors.As(err, &pe) {
		cause = pe.Message
	}
	var coded interface{ Code() int }
	const sqliteReadOnly = 8
	switch {
	case errors.Is(err, memory.ErrCorrupt):
		return &failure{msg: fmt.Sprintf("database %s: %s", abs, cause), code: 1, err: err}
	case errors.Is(err, memory.ErrSchemaTooNew), errors.Is(err, memory.ErrSchemaTooOld):
		return &failure{msg: fmt.Sprintf("database %s: %s", abs, cause), code: 1, err: err}
	case errors.Is(err, os.ErrPermission):
		return &failure{msg: fmt.Sprintf("cannot open database %s: permission denied; choose a file you can write with --db or MNEMON_DB", abs), code: 1, err: err}
	case errors.As(err, &coded) && coded.Code()&0xff == sqliteReadOnly:
		return &failure{msg: fmt.Sprintf("database %s is read-only; mnemon needs to write to it: fix its permissions, or choose another file with --db", abs), code: 1, err: err}
	case errors.Is(err, memory.ErrInvalid):
		return usagef("database %s: %s", abs, cause)
	}
	return &failure{msg: fmt.Sprintf("cannot open database %s: %s", abs, cause), code: 1, err: err}
}

// rootCause is the innermost error err wraps.
func rootCause(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}

// flagValueRE matches the flag package's "invalid value" errors.
var flagValueRE = regexp.MustCompile(`^invalid (?:boolean )?value ("(?:[^"\\]|\\.)*") for (?:flag )?-+([^:]+): `)

// flagProblem rewrites the flag package's errors in the CLI's words.
func flagProblem(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		name := strings.TrimLeft(rest, "-")
		if looksLikeText(name) {
			return fmt.Sprintf("%q looks like a flag; to pass text that starts with '-', put -- before it", rest)
		}
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		return "unknown flag " + flagName(name) + suggest(name, names, flagName)
	}
	if rest, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		return flagName(strings.TrimLeft(rest, "-")) + " needs a value"
	}
	if m := flagValueRE.FindStringSubmatch(msg); m != nil {
		value, name := m[1], m[2]
		want := "a valid value"
		if f := fs.Lookup(name); f != nil {
			if g, ok := f.Value.(flag.Getter); ok {
				switch g.Get().(type) {
				case bool:
					want = "true or false, or no value at all"
				case int:
					want = "a whole number"
				case float64:
					want = "a number"
				}
			}
		}
		return fmt.Sprintf("%s %s: use %s", flagName(name), value, want)
	}
	return msg
}

// looksLikeText tells an argument that starts with '-' but is no flag name
// ("-5 degrees is cold") from a mistyped flag.
func looksLikeText(name string) bool {
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		return true
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return true
		}
	}
	return false
}

// idKinds names the ids a user may type.
var idKinds = map[string]string{
	ids.Memory: "memory", ids.Version: "version", ids.Retrieval: "retrieval", ids.Episode: "episode",
}

// parseID cleans an id the user typed or pasted (remember prints
// mem_…@v2) and checks it has one of the allowed prefixes.
func parseID(cmd, raw string, allowed ...string) (string, error) {
	id, _ := engine.SplitVersionRef(strings.TrimSpace(raw))
	for _, p := range allowed {
		if ids.HasPrefix(id, p) && len(id) > len(p)+1 {
			return id, nil
		}
	}
	var kinds []string
	for _, p := range allowed {
		kinds = append(kinds, fmt.Sprintf("%s (%s_…)", idKinds[p], p))
	}
	list := kinds[0]
	if len(kinds) > 1 {
		list = strings.Join(kinds[:len(kinds)-1], ", ") + " or " + kinds[len(kinds)-1]
	}
	return "", usagef("%s: %q is not a %s id; list ids with 'mnemon facts --history'", cmd, raw, list)
}

// notFound phrases a missing id for the user; other errors pass through.
func notFound(err error, id, ns string) error {
	if !errors.Is(err, memory.ErrNotFound) {
		return err
	}
	kind, hint := "memory", "list ids with 'mnemon facts --history', or choose the namespace with --namespace"
	switch {
	case ids.HasPrefix(id, ids.Version):
		kind = "version"
	case ids.HasPrefix(id, ids.Memory) && strings.Contains(id, "@v"):
		kind = "version" // mem_…@v2
	case ids.HasPrefix(id, ids.Retrieval):
		kind, hint = "retrieval", "every recall prints its retrieval id (ret_…) on its last line"
	case ids.HasPrefix(id, ids.Episode):
		kind, hint = "episode", "'mnemon show' lists a memory's evidence episodes"
	}
	return &failure{msg: fmt.Sprintf("no %s %s in namespace %s; %s", kind, id, ns, hint), code: 1, err: err}
}
