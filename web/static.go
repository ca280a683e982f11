package web

import (
	"embed"
	"io/fs"
)

//go:embed static
var staticFiles embed.FS

// staticFS is the page's files (static/), served as they are.
func staticFS() fs.FS {
	sub, err := fs.Sub(staticFiles, "static")
	if err != nil {
		panic(err)
	}
	return sub
}
