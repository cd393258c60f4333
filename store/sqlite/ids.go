package sqlite

import (
	"database/sql/driver"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	msqlite "modernc.org/sqlite"
)

// Ids as stored (migration 0022). An id mnemon makes is a prefix, "_" and
// a lower-case ULID: 30 bytes of text for 16 bytes of information, and a
// short note carries about twenty of them (rows, keys, indexes). The id
// columns of memories, versions, admissions, episodes and changes are ANY:
// an id of that exact shape is stored as a 16-byte BLOB, the ULID's bytes
// with a code for the prefix in the top 5 bits, any other id (imported,
// user-given) as its text. Those bits are the top of the ULID's 48-bit
// millisecond time, zero until the year 2527 (today's first byte is 1);
// a ULID whose first byte is 8 or more stays text. The form is a function
// of the id alone, so equal ids are equal values in every column, index
// and join, and the read gives back the very text (appendID accepts only
// what idText writes back).
//
// The codes follow the prefixes' text order, and a ULID's bytes sort as
// its text does, so blobs sort among themselves as their texts did; SQLite
// sorts every TEXT before every BLOB, so ids of another shape sort before
// mnemon's own (they sorted by their text before).
var idPrefixes = [...]string{1: "adm_", 2: "ep_", 3: "fb_", 4: "job_", 5: "key_", 6: "mem_", 7: "ret_", 8: "ver_"}

const (
	idBlobLen = 16 // a ULID, the prefix's code in its top 5 bits
	codeShift = 59 // those bits of the first 8 bytes
	ulidChars = 26
	crockford = "0123456789abcdefghjkmnpqrstvwxyz"
)

// crockfordVal maps a lower-case Crockford base32 digit to its value and
// anything else (upper case, i, l, o, u) to 0xff: only the text idText
// writes back is compacted.
var crockfordVal = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for i := 0; i < len(crockford); i++ {
		t[crockford[i]] = byte(i)
	}
	return t
}()

// idCode returns the code of id's prefix, or 0.
func idCode(id string) int {
	for code := 1; code < len(idPrefixes); code++ {
		if strings.HasPrefix(id, idPrefixes[code]) {
			return code
		}
	}
	return 0
}

// appendID appends id's compact form to dst, if id has the shape mnemon
// writes.
func appendID(dst []byte, id string) ([]byte, bool) {
	code := idCode(id)
	if code == 0 {
		return dst, false
	}
	rest := id[len(idPrefixes[code]):]
	if len(rest) != ulidChars || rest[0] > '7' {
		return dst, false // a ULID's 130 bits start with two zeros
	}
	var hi, lo uint64
	for i := 0; i < ulidChars; i++ {
		v := crockfordVal[rest[i]]
		if v == 0xff {
			return dst, false
		}
		hi = hi<<5 | lo>>59
		lo = lo<<5 | uint64(v)
	}
	if hi>>codeShift != 0 {
		return dst, false // the year 2527 or later: no room for the code
	}
	hi |= uint64(code) << codeShift
	dst = binary.BigEndian.AppendUint64(dst, hi)
	return binary.BigEndian.AppendUint64(dst, lo), true
}

// idText is the id a compact form stands for.
func idText(b []byte) (string, bool) {
	if len(b) != idBlobLen {
		return "", false
	}
	hi, lo := binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])
	code := hi >> codeShift
	if code == 0 || code >= uint64(len(idPrefixes)) {
		return "", false
	}
	hi &^= 31 << codeShift
	var buf [4 + ulidChars]byte
	n := copy(buf[:], idPrefixes[code])
	for i := n + ulidChars - 1; i >= n; i-- {
		buf[i] = crockford[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return string(buf[:n+ulidChars]), true
}

// idArg is an id as a statement's argument: its stored form.
func idArg(id string) any {
	if b, ok := appendID(make([]byte, 0, idBlobLen), id); ok {
		return b
	}
	return id
}

// idValue is the stored form of a value read from a text id column (the
// migration's SQL function).
func idValue(v driver.Value) driver.Value {
	if s, ok := v.(string); ok {
		return idArg(s)
	}
	return v
}

// idListArg is a list of ids (a version's evidence episodes) as stored:
// their compact forms one after the other when every id has one, else
// JSON as before (null for nil, [] for empty).
func idListArg(c *encoder, field string, ids []string) any {
	if len(ids) > 0 {
		b := make([]byte, 0, len(ids)*idBlobLen)
		ok := true
		for _, id := range ids {
			if b, ok = appendID(b, id); !ok {
				break
			}
		}
		if ok {
			return b
		}
	}
	return c.json(field, ids)
}

// idListValue is the migration's conversion of a stored JSON list.
func idListValue(v driver.Value) (driver.Value, error) {
	s, ok := v.(string)
	if !ok {
		return v, nil
	}
	var ids []string
	if err := json.Unmarshal([]byte(s), &ids); err != nil {
		return nil, err
	}
	var c encoder
	out := idListArg(&c, "ids", ids)
	if b, ok := out.([]byte); ok {
		return b, nil
	}
	return v, nil // kept as written
}

// firstIDFindable reports whether the SQL that reads a version's first
// evidence id from its stored list (list) finds the episode first names:
// a packed list's first 16 bytes are the episode's stored form, and so is
// a JSON list's first item when that id has no compact form. A JSON list
// (some id in it has no compact form) whose first id has one reads that
// id as text, which no episode row holds: such a version keeps its own
// text rather than share its episode's (shared bit 8).
func firstIDFindable(list any, first string) bool {
	if _, packed := list.([]byte); packed {
		return true
	}
	_, compact := appendID(nil, first)
	return !compact
}

// splitIDs reads a packed list.
func splitIDs(b []byte) ([]string, bool) {
	if len(b) == 0 || len(b)%idBlobLen != 0 {
		return nil, false
	}
	ids := make([]string, 0, len(b)/idBlobLen)
	for ; len(b) > 0; b = b[idBlobLen:] {
		id, ok := idText(b[:idBlobLen])
		if !ok {
			return nil, false
		}
		ids = append(ids, id)
	}
	return ids, true
}

// idsInArg is a list of ids for an IN over an id column: a JSON array
// whose items are "b" and the compact form in hex, or "t" and the text,
// which idsIn's SQL turns back into stored forms.
func idsInArg(ids []string) string {
	items := make([]string, len(ids))
	var b []byte
	for i, id := range ids {
		var ok bool
		if b, ok = appendID(b[:0], id); ok {
			items[i] = "b" + hex.EncodeToString(b)
		} else {
			items[i] = "t" + id
		}
	}
	out, _ := json.Marshal(items) // strings only: cannot fail
	return string(out)
}

// idsInSQL selects the stored forms of idsInArg's list (one parameter).
const idsInSQL = `(SELECT iif(substr(value, 1, 1) = 'b', unhex(substr(value, 2)), substr(value, 2)) FROM json_each(?))`

// id reads an id column: its text, or the text its compact form stands
// for.
func (d *decoder) id() string {
	i := d.next()
	if i < 0 {
		return ""
	}
	switch d.src.kind(i) {
	case kindText:
		return d.src.textAt(i)
	case kindBlob:
		if s, ok := idText(d.src.blobAt(i)); ok {
			return s
		}
	}
	d.fail(i, "an id (TEXT, or a 16-byte BLOB)")
	return ""
}

// idList reads a version's evidence episode ids.
func (d *decoder) idList() []string {
	i := d.next()
	if i < 0 {
		return nil
	}
	if d.src.kind(i) == kindBlob {
		ids, ok := splitIDs(d.src.blobAt(i))
		if !ok {
			d.fail(i, "a list of compact ids")
		}
		return ids
	}
	d.i--
	var ids []string
	d.json(&ids)
	return ids
}

// idScan scans an id column into a string.
type idScan struct{ p *string }

func (s idScan) Scan(v any) error {
	switch v := v.(type) {
	case string:
		*s.p = v
		return nil
	case []byte:
		if id, ok := idText(v); ok {
			*s.p = id
			return nil
		}
	}
	return fmt.Errorf("want an id (TEXT, or a 16-byte BLOB), got %T", v)
}

func init() {
	// Migration 0022's conversions (SQL has no base32). Only its SQL calls
	// them; no index, trigger or query of the schema does.
	msqlite.MustRegisterDeterministicScalarFunction("mnemon_compact_id", 1,
		func(_ *msqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			return idValue(args[0]), nil
		})
	msqlite.MustRegisterDeterministicScalarFunction("mnemon_compact_ids", 1,
		func(_ *msqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			return idListValue(args[0])
		})
}
