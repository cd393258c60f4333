package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
	return &stdioTransport{r: r, out: &lockedWriter{w: w}, maxLine: maxLine}
}

// stdioTransport connects once, as the SDK's IOTransport does.
type stdioTransport struct {
	r       io.Reader
	out     *lockedWriter
	maxLine int
}

func (t *stdioTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &stdioConn{out: t.out, incoming: make(chan readResult), closed: make(chan struct{})}
	go c.readLines(t.r, t.maxLine)
	return c, nil
}

// stdioConn is the connection of StdioTransport. It does what the SDK's
// IOTransport connection does for a client that sends no batches
// (readLines answers a batch itself), in fewer steps: each line is read,
// checked and decoded once, by one goroutine, where the SDK's connection
// behind a line filter took two goroutines, a pipe and three more passes
// over each line; and a successful response is written without a second
// pass over its result (appendResponse).
type stdioConn struct {
	out       *lockedWriter
	incoming  chan readResult
	closed    chan struct{}
	closeOnce sync.Once
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

// readLines sends the JSON-RPC messages of r, one a line, to Read and
// answers the other lines on out. It ends when r does (Read then reports
// io.EOF), when r or out fails (Read reports the error), or when the
// connection is closed. A read of r cannot be interrupted, so a closed
// connection's goroutine ends only at r's next line or its end, as the
// SDK's does.
func (c *stdioConn) readLines(r io.Reader, maxLine int) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, tooLong, err := readLine(br, maxLine)
		if len(line) > 0 || tooLong {
			msg, reply := parse(line, tooLong, maxLine)
			if reply != nil {
				if werr := c.out.writeLine(reply); werr != nil {
					c.send(readResult{err: werr})
					return
				}
			} else if !c.send(readResult{msg: msg}) {
				return
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.EOF
			}
			c.send(readResult{err: err})
			return
		}
	}
}

func (c *stdioConn) send(r readResult) bool {
	select {
	case c.incoming <- r:
		return true
	case <-c.closed:
		return false
	}
}

func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case r := <-c.incoming:
		return r.msg, r.err
	case <-c.closed:
		return nil, io.EOF
	}
}

func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil { // as the SDK's connection: no write on a done context
		return err
	}
	var b []byte
	if resp, ok := msg.(*jsonrpc.Response); ok {
		if fast, ok := appendResponse(make([]byte, 0, len(resp.Result)+64), resp); ok {
			b = fast
		}
	}
	if b == nil {
		var err error
		if b, err = jsonrpc.EncodeMessage(msg); err != nil {
			return fmt.Errorf("marshaling message: %v", err)
		}
	}
	_, err := c.out.Write(append(b, '\n'))
	return err
}

// Close ends the connection: Read reports io.EOF. It does not close r or
// w, which belong to the caller.
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

func (c *stdioConn) SessionID() string { return "" }

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

// parse returns the message a line holds, or the error response the line
// gets instead when it is not one JSON-RPC message the server can read.
func parse(line []byte, tooLong bool, maxLine int) (jsonrpc.Message, []byte) {
	switch {
	case tooLong:
		return nil, errorResponse(nil, codeInvalidRequest, "Invalid Request: the message is longer than the limit of "+strconv.Itoa(maxLine)+" bytes")
	case !json.Valid(line):
		return nil, errorResponse(nil, codeParseError, "Parse error: the line is not valid JSON; send one JSON-RPC message per line")
	case line[0] == '[':
		return nil, errorResponse(nil, codeInvalidRequest, "Invalid Request: JSON-RPC batches are not supported (MCP 2025-06-18 and later have none); send one message per line")
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.Result == nil && resp.Error == nil {
		// Neither a request nor a response: nothing would answer it.
		err = errors.New("no method, result or error")
	}
	if err != nil {
		return nil, errorResponse(requestID(line), codeInvalidRequest, "Invalid Request: not a JSON-RPC 2.0 message (it needs \"jsonrpc\": \"2.0\" and a method, or an id with a result or error)")
	}
	return msg, nil
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

// lockedWriter serialises the server's messages and the error answers
// readLines writes, so two never interleave on one line. Each message is
// written, newline included, in one Write.
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
