package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/store/sqlite"
)

func Example() {
	dir, err := os.MkdirTemp("", "mnemon-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(dir, "mnemon.db"), sqlite.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()

	now := time.Date(2025, 3, 14, 9, 0, 0, 0, time.UTC)
	m := &memory.Memory{
		ID: "mem_1", Namespace: "default", Kind: memory.KindSemantic,
		Subject: "user", Key: "prefers:editor", CreatedAt: now, UpdatedAt: now,
	}
	v := &memory.Version{
		ID: "ver_1", MemoryID: m.ID, Namespace: "default", Seq: 1,
		Kind: memory.KindSemantic, Type: memory.TypePreference,
		Subject: "user", Key: "prefers:editor", Value: "helix",
		Content: "The user prefers Helix.", Status: memory.StatusActive, Operation: memory.OpAdd,
		RecordedAt: now, ValidFrom: now, UpdatedAt: now,
	}
	// The slot and its first version commit together or not at all.
	err = st.InTx(ctx, func(tx memory.Executor) error {
		if err := tx.CreateMemory(ctx, m); err != nil {
			return err
		}
		return tx.CreateVersion(ctx, v)
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	err = st.ScanVersions(ctx, memory.ScanParams{Namespace: "default"}, func(v *memory.Version) error {
		fmt.Printf("%s #%d %s: %s\n", v.MemoryID, v.Seq, v.Status, v.Content)
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	_, err = st.GetVersion(ctx, memory.GetParams{Namespace: "other", ID: "ver_1"})
	fmt.Println(err)
	// Output:
	// mem_1 #1 active: The user prefers Helix.
	// sqlite: get version ver_1: not found
}
