package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// JSON-RPC error codes a stdio server answers on its own.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// StdioTransport returns the transport of `mnemon mcp`: newline-delimited
// JSON-RPC on r and w, as mcp.IOTransport, except that a line which is not
// one JSON-RPC message is answered with a JSON-RPC error and the server
// reads on. The SDK's transport ends the session at such a line, so one
// stray line from a client (or a person typing) would kill the server:
//
//   - a line that is not JSON: -32700 parse error, id null;
//   - a JSON-RPC batch (an array): one -32600 invalid request, id null,
//     since MCP 2025-06-18 and later have no batches;
//   - JSON that is not a JSON-RPC 2.0 message: -32600, with its id when
//     it has a usable one;
//   - a line longer than the SDK's frame limit: -32600, id null.
//
// Blank lines are skipped.
func StdioTransport(r io.Reader, w io.Writer) mcp.Transport {
	return StdioTransportLimited(r, w, mcp.DefaultMaxLineLength)
}

// StdioTransportLimited is StdioTransport with a line length limit other
// than the SDK's default, for tests.
func StdioTransportLimited(r io.Reader, w io.Writer, maxLine int) mcp.Transport {
	out := &lockedWriter{w: w}
	pr, pw := io.Pipe()
	go filterLines(r, pw, out, maxLine)
	return &stdioTransport{io: &mcp.IOTransport{Reader: pr, Writer: nopCloser{out}, MaxLineLength: -1}, out: out}
}

// stdioTransport is the SDK's IOTransport with one step less per answer:
// stdioConn writes a successful response itself.
type stdioTransport struct {
	io  *mcp.IOTransport
	out *lockedWriter
}

func (t *stdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.io.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &stdioConn{Connection: c, out: t.out}, nil
}

// stdioConn writes a successful response (appendResponse) without the
// SDK's second pass over its result; every other message goes through the
// SDK's connection. Responses need none of that connection's batch
// bookkeeping: filterLines answers a batch itself, so none reaches the
// server.
type stdioConn struct {
	mcp.Connection
	out *lockedWriter
}

func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok {
		if b, ok := appendResponse(make([]byte, 0, len(resp.Result)+64), resp); ok {
			if err := ctx.Err(); err != nil { // as the SDK's connection: no write on a done context
				return err
			}
			_, err := c.out.Write(append(b, '\n'))
			return err
		}
	}
	return c.Connection.Write(ctx, msg)
}

// filterLines copies the valid JSON-RPC messages of r, one a line, to pw
// and answers the others on out. It ends when r does (pw then reports
// io.EOF to the server) or when the server closes its end of the pipe.
func filterLines(r io.Reader, pw *io.PipeWriter, out *lockedWriter, maxLine int) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, tooLong, err := readLine(br, maxLine)
		if len(line) > 0 || tooLong {
			var werr error
			if reply := check(line, tooLong, maxLine); reply != nil {
				werr = out.writeLine(reply)
			} else {
				_, werr = pw.Write(append(line, '\n'))
			}
			if werr != nil {
				pw.CloseWithError(werr)
				return
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			pw.CloseWithError(err) // nil: the server reads io.EOF
			return
		}
	}
}

// readLine reads one line without its end of line and surrounding white
// space. A line longer than maxLine is read to its end and dropped:
// tooLong reports it.
func readLine(br *bufio.Reader, maxLine int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > maxLine+2 { // room for "\r\n"
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSpace(line), tooLong, err
	}
}

// check returns the error response a line gets instead of reaching the
// server, or nil when it is one JSON-RPC message the server can read.
func check(line []byte, tooLong bool, maxLine int) []byte {
	switch {
	case tooLong:
		return errorResponse(nil, codeInvalidRequest, "Invalid Request: the message is longer than the limit of "+strconv.Itoa(maxLine)+" bytes")
	case !json.Valid(line):
		return errorResponse(nil, codeParseError, "Parse error: the line is not valid JSON; send one JSON-RPC message per line")
	case line[0] == '[':
		return errorResponse(nil, codeInvalidRequest, "Invalid Request: JSON-RPC batches are not supported (MCP 2025-06-18 and later have none); send one message per line")
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.Result == nil && resp.Error == nil {
		// Neither a request nor a response: nothing would answer it.
		err = errors.New("no method, result or error")
	}
	if err != nil {
		return errorResponse(requestID(line), codeInvalidRequest, "Invalid Request: not a JSON-RPC 2.0 message (it needs \"jsonrpc\": \"2.0\" and a method, or an id with a result or error)")
	}
	return nil
}

// requestID is the id of a message that is not valid JSON-RPC, when it is
// a string or a number, so the client can match the error to its request;
// otherwise nil (null).
func requestID(line []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	var id any
	if json.Unmarshal(m.ID, &id) != nil {
		return nil
	}
	switch id.(type) {
	case string, float64:
		return m.ID
	}
	return nil
}

func errorResponse(id json.RawMessage, code int, msg string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	type wireError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   wireError       `json:"error"`
	}{"2.0", id, wireError{code, msg}}) // cannot fail: plain strings and numbers
	return b
}

// lockedWriter serialises the server's messages and the filter's errors,
// so two never interleave on one line. The SDK writes each message,
// newline included, in one Write.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) writeLine(msg []byte) error {
	_, err := l.Write(append(msg, '\n'))
	return err
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// marshalNoEscape encodes v as the SDK's JSON-RPC layer does: without
// escaping <, > and &.
func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
