// Command etcd is a minimal single-member etcd for end-to-end tests, built from
// go.etcd.io/etcd/server/v3/embed. It prints "etcd ready" once the server can
// serve clients and exits cleanly on SIGTERM or SIGINT.
package main

import (
	"flag"
	"fmt"
	"log"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
)

func mustURL(flagName, s string) url.URL {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Host == "" {
		log.Fatalf("invalid --%s %q: %v", flagName, s, err)
	}
	return *u
}

func main() {
	dataDir := flag.String("data-dir", "", "directory for etcd data (required)")
	clientURL := flag.String("listen-client-url", "http://127.0.0.1:2379", "URL to listen on for client traffic")
	peerURL := flag.String("listen-peer-url", "http://127.0.0.1:2380", "URL to listen on for peer traffic")
	name := flag.String("name", "default", "member name")
	logLevel := flag.String("log-level", "warn", "etcd log level: debug, info, warn, error, panic or fatal")
	readyTimeout := flag.Duration("ready-timeout", 60*time.Second, "give up if the server is not ready within this time")
	flag.Parse()
	if *dataDir == "" {
		fmt.Fprintln(os.Stderr, "etcd: --data-dir is required")
		os.Exit(2)
	}

	cu := mustURL("listen-client-url", *clientURL)
	pu := mustURL("listen-peer-url", *peerURL)

	cfg := embed.NewConfig()
	cfg.Name = *name
	cfg.Dir = *dataDir
	cfg.ListenClientUrls = []url.URL{cu}
	cfg.AdvertiseClientUrls = []url.URL{cu}
	cfg.ListenPeerUrls = []url.URL{pu}
	cfg.AdvertisePeerUrls = []url.URL{pu}
	cfg.InitialCluster = cfg.InitialClusterFromName(*name)
	cfg.LogLevel = *logLevel

	e, err := embed.StartEtcd(cfg)
	if err != nil {
		log.Fatalf("etcd: start: %v", err)
	}

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)

	select {
	case <-e.Server.ReadyNotify():
		fmt.Println("etcd ready")
	case err := <-e.Err():
		e.Close()
		log.Fatalf("etcd: failed before ready: %v", err)
	case s := <-sigs:
		fmt.Printf("etcd: got %v before ready, stopping\n", s)
		e.Close()
		return
	case <-time.After(*readyTimeout):
		e.Server.Stop()
		e.Close()
		log.Fatalf("etcd: not ready within %v", *readyTimeout)
	}

	select {
	case s := <-sigs:
		fmt.Printf("etcd: got %v, stopping\n", s)
		e.Close()
		fmt.Println("etcd stopped")
	case err := <-e.Err():
		e.Close()
		log.Fatalf("etcd: %v", err)
	}
}
