package main

import "office/drain"

// A short name for the engine's callback type.
type drainNotice = drain.Notice
