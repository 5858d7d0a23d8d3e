// srs-pion-client: a WebRTC player built on Pion (github.com/pion/webrtc/v4),
// the black-box tests' third independent peer next to aiortc and Chromium.
//
// It plays one stream through WHEP or SRS's JSON API, counts the RTP packets
// it receives for the given time and prints one JSON line:
//
//	{"connected":true,"dtls_state":"connected","ice_state":"connected",
//	 "rtp_packets":812,"video_packets":700,"video_frames":60,"audio_packets":112,
//	 "ms_to_connected":143,...}
//
// The exit code is 0 only when the peer connection reached "connected".
//
// What the tests need from a peer, and how Pion gets it:
//   - --dtls-role: the a=setup the server reads in our offer. Pion, as an
//     offerer, always writes actpass (SettingEngine.SetAnsweringDTLSRole only
//     applies to answers), so the offer POSTed to the server is edited, not
//     our local description: with "passive" the server answers active and
//     Pion, which offered actpass, takes the answer's opposite (DTLS server).
//   - --cert: the key of the certificate Pion presents (GenerateCertificate).
//   - --no-nack: the offer POSTed loses its a=rtcp-fb:PT nack lines.
//   - --connect-to: the answer's candidates are rewritten to this address, so
//     every packet goes through a proxy (test/dtls_lossy_proxy.py).
//
// Loopback only: the one host candidate is 127.0.0.1, no STUN server.
package main

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pion/ice/v4"
	"github.com/pion/interceptor"
	"github.com/pion/logging"
	"github.com/pion/webrtc/v4"
)

type options struct {
	api       string
	app       string
	stream    string
	via       string
	dtlsRole  string
	cert      string
	noNack    bool
	scheme    string
	connectTo string
	timeout   time.Duration
	duration  time.Duration
	untilA    int64
	untilV    int64
	logLevel  string
}

// result is the JSON line printed at the end.
type result struct {
	Connected     bool    `json:"connected"`
	DTLSState     string  `json:"dtls_state"`
	ICEState      string  `json:"ice_state"`
	PCState       string  `json:"pc_state"`
	OfferSetup    string  `json:"offer_setup"`
	AnswerSetup   string  `json:"answer_setup"`
	DTLSRole      string  `json:"dtls_role"` // Pion's: client (sent the ClientHello) or server
	Cert          string  `json:"cert"`
	RTPPackets    int64   `json:"rtp_packets"`
	VideoPackets  int64   `json:"video_packets"`
	VideoFrames   int64   `json:"video_frames"` // RTP marker bits: one per frame
	AudioPackets  int64   `json:"audio_packets"`
	MaxGapMs      float64 `json:"max_gap_ms"` // the longest time without any RTP, from the first packet on
	MsToConnected float64 `json:"ms_to_connected"`
	Error         string  `json:"error,omitempty"`
}

func parseFlags(args []string) (*options, error) {
	fs := flag.NewFlagSet("srs-pion-client", flag.ContinueOnError)
	o := &options{}
	fs.StringVar(&o.api, "api", "127.0.0.1:1985", "HOST:PORT of the server's HTTP API")
	fs.StringVar(&o.app, "app", "live", "app of the stream")
	fs.StringVar(&o.stream, "stream", "livestream", "stream name")
	fs.StringVar(&o.via, "via", "whep", "signalling: whep (POST /rtc/v1/whep/) or json (POST /rtc/v1/play/)")
	fs.StringVar(&o.dtlsRole, "dtls-role", "actpass",
		"the a=setup of the offer sent: actpass or active (the server is the DTLS server), passive (it is the client)")
	fs.StringVar(&o.cert, "cert", "default", "our certificate's key: default (Pion's ECDSA P-256), rsa4096 or p384")
	fs.BoolVar(&o.noNack, "no-nack", false, "strip a=rtcp-fb:PT nack from the offer")
	fs.StringVar(&o.scheme, "streamurl-scheme", "webrtc", "the scheme of the JSON API's streamurl (webrtc, http, https, rtmp)")
	fs.StringVar(&o.connectTo, "connect-to", "", "HOST:PORT replacing the answer's candidates (a proxy)")
	fs.DurationVar(&o.timeout, "timeout", 15*time.Second, "give up when not connected after this long")
	fs.DurationVar(&o.duration, "duration", 3*time.Second, "how long to receive media once connected")
	fs.Int64Var(&o.untilA, "until-audio", 0, "with --until-video: stop receiving early once this many audio packets came")
	fs.Int64Var(&o.untilV, "until-video", 0, "with --until-audio: stop receiving early once this many video packets came")
	fs.StringVar(&o.logLevel, "log", "error", "Pion's log level on stderr: error, warn, info, debug, trace")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: srs-pion-client play [flags]\n")
		fs.PrintDefaults()
	}
	if len(args) == 0 || args[0] != "play" {
		fs.Usage()
		return nil, errors.New("the only action is play")
	}
	if err := fs.Parse(args[1:]); err != nil {
		return nil, err
	}
	switch o.via {
	case "whep", "json":
	default:
		return nil, fmt.Errorf("--via %q: want whep or json", o.via)
	}
	switch o.dtlsRole {
	case "actpass", "active", "passive":
	default:
		return nil, fmt.Errorf("--dtls-role %q: want actpass, active or passive", o.dtlsRole)
	}
	if o.connectTo != "" {
		if _, _, err := net.SplitHostPort(o.connectTo); err != nil {
			return nil, fmt.Errorf("--connect-to %q: %w", o.connectTo, err)
		}
	}
	return o, nil
}

// certificate makes the certificate --cert asks for; nil means Pion's default.
func certificate(kind string) (*webrtc.Certificate, error) {
	var key crypto.PrivateKey
	var err error
	switch kind {
	case "default":
		return nil, nil
	case "rsa4096":
		key, err = rsa.GenerateKey(rand.Reader, 4096)
	case "p384":
		key, err = ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	default:
		return nil, fmt.Errorf("--cert %q: want default, rsa4096 or p384", kind)
	}
	if err != nil {
		return nil, err
	}
	return webrtc.GenerateCertificate(key)
}

// mungeOffer writes the requested a=setup and, with noNack, drops the
// a=rtcp-fb:PT nack lines (not "nack pli", which asks for keyframes).
func mungeOffer(sdp, setup string, noNack bool) string {
	lines := strings.Split(strings.ReplaceAll(sdp, "\r\n", "\n"), "\n")
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		if strings.HasPrefix(l, "a=setup:") {
			l = "a=setup:" + setup
		}
		if noNack && strings.HasPrefix(l, "a=rtcp-fb:") && strings.HasSuffix(l, " nack") {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\r\n")
}

// rewriteCandidates points every a=candidate of the answer at hostport:
// "a=candidate:F C udp PRIO ADDR PORT typ host ..." keeps all but ADDR, PORT.
func rewriteCandidates(sdp, hostport string) (string, int, error) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return "", 0, err
	}
	lines := strings.Split(strings.ReplaceAll(sdp, "\r\n", "\n"), "\n")
	n := 0
	for i, l := range lines {
		if !strings.HasPrefix(l, "a=candidate:") {
			continue
		}
		f := strings.Fields(l)
		if len(f) < 8 || !strings.EqualFold(f[2], "udp") {
			continue
		}
		f[4], f[5] = host, port
		lines[i] = strings.Join(f, " ")
		n++
	}
	return strings.Join(lines, "\r\n"), n, nil
}

func setupOf(sdp string) string {
	for _, l := range strings.Split(sdp, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "a=setup:") {
			return strings.TrimPrefix(l, "a=setup:")
		}
	}
	return ""
}

// signal POSTs the offer and returns the server's answer.
func signal(o *options, offer string, timeout time.Duration) (string, error) {
	client := &http.Client{Timeout: timeout}
	base := "http://" + o.api
	if o.via == "whep" {
		q := url.Values{"app": {o.app}, "stream": {o.stream}}
		resp, err := client.Post(base+"/rtc/v1/whep/?"+q.Encode(), "application/sdp", strings.NewReader(offer))
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if resp.StatusCode != http.StatusCreated {
			return "", fmt.Errorf("WHEP: HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(body))
		}
		return string(body), nil
	}
	host, _, err := net.SplitHostPort(o.api)
	if err != nil {
		return "", err
	}
	api := base + "/rtc/v1/play/"
	req, _ := json.Marshal(map[string]any{
		"api": api, "tid": strconv.FormatInt(time.Now().UnixNano()&0xffffff, 16),
		"streamurl": fmt.Sprintf("%s://%s/%s/%s", o.scheme, host, o.app, o.stream), "clientip": nil, "sdp": offer,
	})
	resp, err := client.Post(api, "application/json", bytes.NewReader(req))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var reply struct {
		Code int    `json:"code"`
		SDP  string `json:"sdp"`
	}
	if err := json.Unmarshal(body, &reply); err != nil || resp.StatusCode != http.StatusOK || reply.Code != 0 {
		return "", fmt.Errorf("JSON API: HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(body))
	}
	return reply.SDP, nil
}

func newAPI(o *options) (*webrtc.API, error) {
	se := webrtc.SettingEngine{}
	se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
	se.SetIncludeLoopbackCandidate(true)
	se.SetIPFilter(func(ip net.IP) bool { return ip.IsLoopback() })
	se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	factory := logging.NewDefaultLoggerFactory()
	if lvl, ok := map[string]logging.LogLevel{
		"error": logging.LogLevelError, "warn": logging.LogLevelWarn, "info": logging.LogLevelInfo,
		"debug": logging.LogLevelDebug, "trace": logging.LogLevelTrace,
	}[o.logLevel]; ok {
		factory.DefaultLogLevel = lvl
	} else {
		return nil, fmt.Errorf("--log %q: want error, warn, info, debug or trace", o.logLevel)
	}
	se.LoggerFactory = factory

	me := &webrtc.MediaEngine{}
	if err := me.RegisterDefaultCodecs(); err != nil {
		return nil, err
	}
	ir := &interceptor.Registry{}
	if err := webrtc.RegisterDefaultInterceptors(me, ir); err != nil {
		return nil, err
	}
	return webrtc.NewAPI(webrtc.WithSettingEngine(se), webrtc.WithMediaEngine(me),
		webrtc.WithInterceptorRegistry(ir)), nil
}

type counters struct {
	rtp, video, frames, audio atomic.Int64

	mu     sync.Mutex
	last   time.Time
	maxGap time.Duration
}

// arrived books one packet's arrival for max_gap_ms.
func (c *counters) arrived(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.last.IsZero() && now.Sub(c.last) > c.maxGap {
		c.maxGap = now.Sub(c.last)
	}
	c.last = now
}

// gap is the longest silence so far, the one still running included.
func (c *counters) gap(now time.Time) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.last.IsZero() && now.Sub(c.last) > c.maxGap {
		return now.Sub(c.last)
	}
	return c.maxGap
}

// run plays until --duration after connecting (or --timeout without); the
// result is a snapshot taken before the peer connection closes.
func run(o *options) result {
	var mu sync.Mutex
	var res result
	snapshot := func() result {
		mu.Lock()
		defer mu.Unlock()
		return res
	}
	res.Cert = o.cert
	res.OfferSetup = o.dtlsRole
	res.DTLSState, res.ICEState, res.PCState = "new", "new", "new"
	deadline := time.Now().Add(o.timeout)

	api, err := newAPI(o)
	if err != nil {
		res.Error = err.Error()
		return snapshot()
	}
	cfg := webrtc.Configuration{}
	cert, err := certificate(o.cert)
	if err != nil {
		res.Error = err.Error()
		return snapshot()
	}
	if cert != nil {
		cfg.Certificates = []webrtc.Certificate{*cert}
	}
	pc, err := api.NewPeerConnection(cfg)
	if err != nil {
		res.Error = err.Error()
		return snapshot()
	}
	defer pc.Close()

	var count counters
	var wg sync.WaitGroup
	pc.OnTrack(func(track *webrtc.TrackRemote, _ *webrtc.RTPReceiver) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			video := track.Kind() == webrtc.RTPCodecTypeVideo
			for {
				p, _, err := track.ReadRTP()
				if err != nil {
					return
				}
				count.rtp.Add(1)
				count.arrived(time.Now())
				if video {
					count.video.Add(1)
					if p.Marker {
						count.frames.Add(1)
					}
				} else {
					count.audio.Add(1)
				}
			}
		}()
	})
	for _, kind := range []webrtc.RTPCodecType{webrtc.RTPCodecTypeVideo, webrtc.RTPCodecTypeAudio} {
		if _, err := pc.AddTransceiverFromKind(kind, webrtc.RTPTransceiverInit{
			Direction: webrtc.RTPTransceiverDirectionRecvonly}); err != nil {
			res.Error = err.Error()
			return snapshot()
		}
	}

	connected := make(chan struct{})
	failed := make(chan struct{})
	var connectedOnce, failedOnce sync.Once
	var postTime, connectedAt time.Time
	pc.OnConnectionStateChange(func(s webrtc.PeerConnectionState) {
		mu.Lock()
		defer mu.Unlock()
		res.PCState = s.String()
		switch s {
		case webrtc.PeerConnectionStateConnected:
			connectedOnce.Do(func() { connectedAt = time.Now(); close(connected) })
		case webrtc.PeerConnectionStateFailed, webrtc.PeerConnectionStateClosed:
			failedOnce.Do(func() { close(failed) })
		}
	})
	pc.OnICEConnectionStateChange(func(s webrtc.ICEConnectionState) {
		mu.Lock()
		res.ICEState = s.String()
		mu.Unlock()
	})

	offer, err := pc.CreateOffer(nil)
	if err != nil {
		res.Error = err.Error()
		return snapshot()
	}
	gathered := webrtc.GatheringCompletePromise(pc)
	if err := pc.SetLocalDescription(offer); err != nil {
		res.Error = err.Error()
		return snapshot()
	}
	select {
	case <-gathered:
	case <-time.After(time.Until(deadline)):
		res.Error = "ICE gathering did not complete"
		return snapshot()
	}
	// The DTLS transport exists once the local description is set.
	if t := pc.GetTransceivers(); len(t) > 0 && t[0].Receiver() != nil {
		t[0].Receiver().Transport().OnStateChange(func(s webrtc.DTLSTransportState) {
			mu.Lock()
			res.DTLSState = s.String()
			mu.Unlock()
		})
	}

	sent := mungeOffer(pc.LocalDescription().SDP, o.dtlsRole, o.noNack)
	postTime = time.Now()
	answer, err := signal(o, sent, time.Until(deadline))
	if err != nil {
		res.Error = err.Error()
		return snapshot()
	}
	res.AnswerSetup = setupOf(answer)
	if res.AnswerSetup == "active" {
		res.DTLSRole = "server"
	} else {
		res.DTLSRole = "client"
	}
	if o.connectTo != "" {
		var n int
		answer, n, err = rewriteCandidates(answer, o.connectTo)
		if err == nil && n == 0 {
			err = errors.New("the answer has no UDP candidate to rewrite")
		}
		if err != nil {
			res.Error = "--connect-to: " + err.Error()
			return snapshot()
		}
	}
	if err := pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeAnswer, SDP: answer}); err != nil {
		res.Error = err.Error()
		return snapshot()
	}

	select {
	case <-connected:
		mu.Lock()
		res.Connected = true
		res.MsToConnected = float64(connectedAt.Sub(postTime).Microseconds()) / 1000
		mu.Unlock()
	case <-failed:
		mu.Lock()
		res.Error = "the peer connection failed"
		mu.Unlock()
	case <-time.After(time.Until(deadline)):
		mu.Lock()
		res.Error = fmt.Sprintf("not connected after %s", o.timeout)
		mu.Unlock()
	}
	if res.Connected {
		ctx, cancel := context.WithTimeout(context.Background(), o.duration)
		tick := time.NewTicker(20 * time.Millisecond)
	receive:
		for {
			select {
			case <-ctx.Done():
				break receive
			case <-failed:
				mu.Lock()
				res.Error = "the peer connection failed while receiving"
				mu.Unlock()
				break receive
			case <-tick.C:
				if (o.untilA > 0 || o.untilV > 0) && count.audio.Load() >= o.untilA && count.video.Load() >= o.untilV {
					break receive
				}
			}
		}
		tick.Stop()
		cancel()
	}
	mu.Lock()
	res.RTPPackets, res.VideoPackets = count.rtp.Load(), count.video.Load()
	res.VideoFrames, res.AudioPackets = count.frames.Load(), count.audio.Load()
	res.MaxGapMs = float64(count.gap(time.Now()).Microseconds()) / 1000
	mu.Unlock()
	return snapshot()
}

func main() {
	o, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "srs-pion-client:", err)
		os.Exit(2)
	}
	res := run(o)
	line, _ := json.Marshal(res)
	fmt.Println(string(line))
	if !res.Connected {
		os.Exit(1)
	}
}
