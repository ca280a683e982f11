//go:build !linux

package main

// releaseStartPages does nothing off Linux (pages_linux.go).
func releaseStartPages() {}
