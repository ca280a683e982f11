// Command fakemodel runs the loopback fake model server (office/test/fakemodel)
// for trying a real agent CLI by hand, offline:
//
//	go run ./test/fakemodel/cmd/fakemodel -delay 2s -reply "OK done."
//
// It prints its URL (always 127.0.0.1) and then one line per request.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"

	"office/test/fakemodel"
)

func main() {
	delay := flag.Duration("delay", time.Second, "time before the first token of each reply")
	tick := flag.Duration("tick", 20*time.Millisecond, "time between the reply's words")
	reply := flag.String("reply", "OK done.", "the canned reply")
	refuse := flag.Int("refuse", 0, "refuse every model call with this HTTP status (429: each vendor's rate/usage limit, 529: overloaded)")
	reset := flag.Duration("reset", time.Hour, "with -refuse: when the limit resets, from now")
	flag.Parse()
	s, err := fakemodel.New(fakemodel.Options{Delay: *delay, Tick: *tick, Reply: *reply})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer s.Close()
	if *refuse != 0 {
		s.Refuse(fakemodel.Refusal{Status: *refuse, Reset: time.Now().Add(*reset)})
	}
	fmt.Println(s.URL)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt)
	seen := 0
	for {
		select {
		case <-stop:
			return
		case <-time.After(200 * time.Millisecond):
		}
		reqs := s.Requests()
		for _, r := range reqs[seen:] {
			fmt.Printf("%s %s %s %d bytes prompt=%q\n", r.At.Format("15:04:05.000"), r.Method, r.Path, len(r.Body), fakemodel.LastPrompt(r))
		}
		seen = len(reqs)
	}
}
