package sqlite

import (
	"database/sql"
	"fmt"

	"github.com/mnemon-dev/mnemon/memory"
)

// WriterDB returns the store's single write connection, for a job queue
// whose rows must commit in the store's own transactions. SQLite has one
// writer at a time; sharing the connection keeps the queue from fighting
// the store for the write lock.
func (s *Store) WriterDB() *sql.DB { return s.writer }

// SQLTx returns the database/sql transaction behind an executor that InTx
// passed to its function, so a job can be inserted in that transaction.
func SQLTx(tx memory.Executor) (*sql.Tx, error) {
	e, ok := tx.(*executor)
	if !ok || e.tx == nil {
		return nil, fmt.Errorf("sqlite: %T is not an executor inside InTx", tx)
	}
	return e.tx, nil
}
