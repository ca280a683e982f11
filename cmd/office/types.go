package main

import (
	"office/drain"
	"office/pool"
)

// Short names for the engine's callback types.
type (
	drainNotice = drain.Notice
	poolEvent   = pool.Event
)
