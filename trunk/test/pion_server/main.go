// srs-pion-server: a small WHIP/WHEP server built on Pion
// (github.com/pion/webrtc/v4), for testing our load tools against a server
// that is not ours. Unlike SRS it is a full ICE agent (Pion's default, not
// ICE-lite): as the answerer it is the controlled side, sends its own
// connectivity checks and only selects a pair once its check on it got a
// response.
//
//	srs-pion-server --listen 127.0.0.1:8080 [--h264 4d001f,64001f]
//	POST   /whip?stream=NAME   offer (application/sdp) -> 201 answer, Location /session/ID
//	POST   /whep?stream=NAME   offer -> 201 answer (the stream's tracks), Location /session/ID
//	DELETE /session/ID         ends that session
//	GET    /stats              the counters as JSON (see statsReply)
//
// The tracks a WHIP session publishes are forwarded packet by packet to every
// WHEP session of that stream, each player through its own
// TrackLocalStaticRTP; a player's video starts at a keyframe (an IDR or SPS
// starts a packet, the way a browser SFU gates a newcomer), audio at once. A
// WHEP offer for a stream with no track yet gets 404. When a player's session
// starts, a PLI goes to the publisher. Loopback only: the one host candidate
// is 127.0.0.1, UDP4, no mDNS, no STUN server.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/pion/ice/v4"
	"github.com/pion/interceptor"
	"github.com/pion/logging"
	"github.com/pion/rtcp"
	"github.com/pion/rtp"
	"github.com/pion/webrtc/v4"
)

// session is one peer connection, a publisher's or a player's.
type session struct {
	id     string
	role   string // "publish" or "play"
	stream string
	pc     *webrtc.PeerConnection

	rtpIn, rtpOut, rtcpIn           atomic.Int64
	audioIn, videoIn                atomic.Int64
	connected, dtlsConnected, ended atomic.Bool
	selectedPair                    atomic.Value // string, once connected
	codecs                          atomic.Value // []string, what the publisher's tracks carry
}

// stream is what one publisher offers to players.
type stream struct {
	publisher *session
	caps      []webrtc.RTPCodecCapability // the publisher's tracks, as they came
	kinds     []webrtc.RTPCodecType
	ssrcs     []uint32 // the publisher's, for PLIs
	players   map[string]*player
}

// player is one WHEP session's outgoing tracks.
type player struct {
	ss     *session
	tracks map[webrtc.RTPCodecType]*webrtc.TrackLocalStaticRTP
	keyed  atomic.Bool // its video has started at a keyframe
}

type server struct {
	api  *webrtc.API
	h264 []string // --h264: the only profiles taken

	mu       sync.Mutex
	sessions map[string]*session
	streams  map[string]*stream
	nextID   int
	ended    []*session // kept for /stats after they end
}

func main() {
	listen := flag.String("listen", "127.0.0.1:8080", "HTTP address (WHIP, WHEP, stats)")
	logLevel := flag.String("log", "error", "Pion's log level: error, warn, info, debug, trace")
	h264 := flag.String("h264", "", "comma-separated H.264 profile-level-ids to take (packetization-mode 1 "+
		"only, with Opus); an offer with none of them is refused (400); empty: Pion's default codecs")
	flag.Parse()
	api, err := newAPI(*logLevel, *h264)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	s := &server{api: api, sessions: map[string]*session{}, streams: map[string]*stream{}}
	if *h264 != "" {
		s.h264 = strings.Split(strings.ToLower(*h264), ",")
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/whip", s.handleWHIP)
	mux.HandleFunc("/whep", s.handleWHEP)
	mux.HandleFunc("/session/", s.handleDelete)
	mux.HandleFunc("/stats", s.handleStats)
	fmt.Printf("listening %s\n", ln.Addr())
	os.Stdout.Sync()
	if err := http.Serve(ln, mux); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func newAPI(level, h264 string) (*webrtc.API, error) {
	se := webrtc.SettingEngine{}
	se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
	se.SetIncludeLoopbackCandidate(true)
	se.SetIPFilter(func(ip net.IP) bool { return ip.IsLoopback() })
	se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	factory := logging.NewDefaultLoggerFactory()
	lvl, ok := map[string]logging.LogLevel{
		"error": logging.LogLevelError, "warn": logging.LogLevelWarn, "info": logging.LogLevelInfo,
		"debug": logging.LogLevelDebug, "trace": logging.LogLevelTrace,
	}[level]
	if !ok {
		return nil, fmt.Errorf("--log %q: want error, warn, info, debug or trace", level)
	}
	factory.DefaultLogLevel = lvl
	se.LoggerFactory = factory

	me := &webrtc.MediaEngine{}
	if err := registerCodecs(me, h264); err != nil {
		return nil, err
	}
	ir := &interceptor.Registry{}
	if err := webrtc.RegisterDefaultInterceptors(me, ir); err != nil {
		return nil, err
	}
	return webrtc.NewAPI(webrtc.WithSettingEngine(se), webrtc.WithMediaEngine(me),
		webrtc.WithInterceptorRegistry(ir)), nil
}

// registerCodecs: Pion's defaults, or Opus and H.264 in the given profiles
// only (a server as picky as the one of issue 23, which refused an offer of
// the one profile it did not take).
func registerCodecs(me *webrtc.MediaEngine, h264 string) error {
	if h264 == "" {
		return me.RegisterDefaultCodecs()
	}
	opus := webrtc.RTPCodecParameters{
		RTPCodecCapability: webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeOpus, ClockRate: 48000, Channels: 2,
			SDPFmtpLine: "minptime=10;useinbandfec=1"},
		PayloadType: 111,
	}
	if err := me.RegisterCodec(opus, webrtc.RTPCodecTypeAudio); err != nil {
		return err
	}
	fb := []webrtc.RTCPFeedback{{Type: "goog-remb"}, {Type: "ccm", Parameter: "fir"}, {Type: "nack"},
		{Type: "nack", Parameter: "pli"}}
	for i, profile := range strings.Split(h264, ",") {
		c := webrtc.RTPCodecParameters{
			RTPCodecCapability: webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeH264, ClockRate: 90000,
				SDPFmtpLine:  "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=" + profile,
				RTCPFeedback: fb},
			PayloadType: webrtc.PayloadType(96 + i),
		}
		if err := me.RegisterCodec(c, webrtc.RTPCodecTypeVideo); err != nil {
			return err
		}
	}
	return nil
}

// readOffer takes a POST's SDP body and the stream name of its query.
func readOffer(w http.ResponseWriter, r *http.Request) (string, string, bool) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST an SDP offer", http.StatusMethodNotAllowed)
		return "", "", false
	}
	name := r.URL.Query().Get("stream")
	if name == "" {
		http.Error(w, "no ?stream=", http.StatusBadRequest)
		return "", "", false
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil || !strings.HasPrefix(string(body), "v=0") {
		http.Error(w, "the body is not an SDP offer", http.StatusBadRequest)
		return "", "", false
	}
	return name, string(body), true
}

// takesH264 says whether an offer has an H.264 packetization-mode 1 entry in
// one of the profiles taken: the same profile_idc and constraint flags (the
// first four hex digits; the level may differ). Pion itself would fall back
// to any H.264; with --h264 the server is strict, as issue 23's was.
func (s *server) takesH264(offer string) bool {
	if len(s.h264) == 0 {
		return true
	}
	for _, line := range strings.Split(offer, "\n") {
		line = strings.ToLower(strings.TrimSpace(line))
		if !strings.HasPrefix(line, "a=fmtp:") || !strings.Contains(line, "packetization-mode=1") {
			continue
		}
		at := strings.Index(line, "profile-level-id=")
		if at < 0 || len(line) < at+len("profile-level-id=")+6 {
			continue
		}
		id := line[at+len("profile-level-id=") : at+len("profile-level-id=")+6]
		for _, p := range s.h264 {
			if len(p) == 6 && id[:4] == p[:4] {
				return true
			}
		}
	}
	return false
}

func (s *server) newSession(role, name string) (*session, error) {
	pc, err := s.api.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.nextID++
	ss := &session{id: strconv.Itoa(s.nextID), role: role, stream: name, pc: pc}
	s.sessions[ss.id] = ss
	s.mu.Unlock()
	ss.selectedPair.Store("")
	ss.codecs.Store([]string{})
	pc.OnConnectionStateChange(func(st webrtc.PeerConnectionState) {
		switch st {
		case webrtc.PeerConnectionStateConnected:
			ss.connected.Store(true)
			if pc.SCTP() != nil && pc.SCTP().Transport().State() == webrtc.DTLSTransportStateConnected {
				ss.dtlsConnected.Store(true)
			}
			if pair, err := pc.SCTP().Transport().ICETransport().GetSelectedCandidatePair(); err == nil && pair != nil {
				ss.selectedPair.Store(pair.String())
			}
		case webrtc.PeerConnectionStateFailed, webrtc.PeerConnectionStateClosed:
			s.end(ss)
		}
	})
	return ss, nil
}

// answer applies the offer and writes the complete answer (all candidates).
func (s *server) answer(w http.ResponseWriter, ss *session, offer string, prepare func() error) {
	fail := func(status int, err error) {
		s.end(ss)
		http.Error(w, err.Error(), status)
	}
	if err := ss.pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeOffer, SDP: offer}); err != nil {
		fail(http.StatusBadRequest, err)
		return
	}
	if prepare != nil {
		if err := prepare(); err != nil {
			fail(http.StatusNotFound, err)
			return
		}
	}
	ans, err := ss.pc.CreateAnswer(nil)
	if err != nil {
		fail(http.StatusBadRequest, err)
		return
	}
	gathered := webrtc.GatheringCompletePromise(ss.pc)
	if err := ss.pc.SetLocalDescription(ans); err != nil {
		fail(http.StatusInternalServerError, err)
		return
	}
	<-gathered
	w.Header().Set("Content-Type", "application/sdp")
	w.Header().Set("Location", "/session/"+ss.id)
	w.WriteHeader(http.StatusCreated)
	_, _ = io.WriteString(w, ss.pc.LocalDescription().SDP)
}

func (s *server) handleWHIP(w http.ResponseWriter, r *http.Request) {
	name, offer, ok := readOffer(w, r)
	if !ok {
		return
	}
	if !s.takesH264(offer) {
		http.Error(w, "codecs not supported: no H.264 packetization-mode 1 in "+strings.Join(s.h264, ", "),
			http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	_, taken := s.streams[name]
	s.mu.Unlock()
	if taken {
		http.Error(w, "stream "+name+" is being published", http.StatusConflict)
		return
	}
	ss, err := s.newSession("publish", name)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	st := &stream{publisher: ss, players: map[string]*player{}}
	s.mu.Lock()
	s.streams[name] = st
	s.mu.Unlock()
	ss.pc.OnTrack(func(remote *webrtc.TrackRemote, _ *webrtc.RTPReceiver) {
		kind := remote.Kind()
		s.mu.Lock()
		st.caps = append(st.caps, remote.Codec().RTPCodecCapability)
		st.kinds = append(st.kinds, kind)
		st.ssrcs = append(st.ssrcs, uint32(remote.SSRC()))
		s.mu.Unlock()
		codecs := append([]string{}, ss.codecs.Load().([]string)...)
		ss.codecs.Store(append(codecs, remote.Codec().MimeType+" "+remote.Codec().SDPFmtpLine))
		video := kind == webrtc.RTPCodecTypeVideo
		var players []*player
		for {
			pkt, _, err := remote.ReadRTP()
			if err != nil {
				return
			}
			ss.rtpIn.Add(1)
			if video {
				ss.videoIn.Add(1)
			} else {
				ss.audioIn.Add(1)
			}
			s.mu.Lock()
			players = players[:0]
			for _, p := range st.players {
				players = append(players, p)
			}
			s.mu.Unlock()
			for _, p := range players {
				t := p.tracks[kind]
				if t == nil {
					continue
				}
				if video && !p.keyed.Load() {
					// Before DTLS is up a track drops what it is given: the
					// keyframe must be the first one the player can get.
					if !p.ss.connected.Load() || !h264StartsKeyframe(pkt.Payload) {
						continue
					}
					p.keyed.Store(true)
				}
				_ = t.WriteRTP(pkt) // counted by the player's sender (countingWriter)
			}
		}
	})
	s.answer(w, ss, offer, nil)
}

func (s *server) handleWHEP(w http.ResponseWriter, r *http.Request) {
	name, offer, ok := readOffer(w, r)
	if !ok {
		return
	}
	if !s.takesH264(offer) {
		http.Error(w, "codecs not supported: no H.264 packetization-mode 1 in "+strings.Join(s.h264, ", "),
			http.StatusBadRequest)
		return
	}
	ss, err := s.newSession("play", name)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	s.answer(w, ss, offer, func() error {
		s.mu.Lock()
		st := s.streams[name]
		var caps []webrtc.RTPCodecCapability
		var kinds []webrtc.RTPCodecType
		if st != nil {
			caps = append(caps, st.caps...)
			kinds = append(kinds, st.kinds...)
		}
		s.mu.Unlock()
		if len(caps) == 0 {
			return fmt.Errorf("stream %s has no track", name)
		}
		p := &player{ss: ss, tracks: map[webrtc.RTPCodecType]*webrtc.TrackLocalStaticRTP{}}
		for i, c := range caps {
			t, err := webrtc.NewTrackLocalStaticRTP(c, kinds[i].String(), "pion-"+name)
			if err != nil {
				return err
			}
			p.tracks[kinds[i]] = t
			sender, err := ss.pc.AddTrack(countingTrack{t, ss})
			if err != nil {
				return err
			}
			go func() {
				for {
					pkts, _, err := sender.ReadRTCP()
					if err != nil {
						return
					}
					ss.rtcpIn.Add(int64(len(pkts)))
				}
			}()
		}
		s.mu.Lock()
		st.players[ss.id] = p
		s.mu.Unlock()
		// A keyframe for the newcomer (a browser honours it; ffmpeg behind
		// sb_rtc_publish has a fixed GOP and only counts it).
		var plis []rtcp.Packet
		for _, ssrc := range st.ssrcs {
			plis = append(plis, &rtcp.PictureLossIndication{MediaSSRC: ssrc})
		}
		_ = st.publisher.pc.WriteRTCP(plis)
		return nil
	})
}

// countingTrack counts what is written to one player.
type countingTrack struct {
	*webrtc.TrackLocalStaticRTP
	ss *session
}

func (c countingTrack) Bind(ctx webrtc.TrackLocalContext) (webrtc.RTPCodecParameters, error) {
	return c.TrackLocalStaticRTP.Bind(countingContext{ctx, c.ss})
}

type countingContext struct {
	webrtc.TrackLocalContext
	ss *session
}

func (c countingContext) WriteStream() webrtc.TrackLocalWriter {
	return countingWriter{c.TrackLocalContext.WriteStream(), c.ss}
}

type countingWriter struct {
	webrtc.TrackLocalWriter
	ss *session
}

func (c countingWriter) WriteRTP(h *rtp.Header, payload []byte) (int, error) {
	n, err := c.TrackLocalWriter.WriteRTP(h, payload)
	if err == nil {
		c.ss.rtpOut.Add(1)
	}
	return n, err
}

func (c countingWriter) Write(b []byte) (int, error) {
	n, err := c.TrackLocalWriter.Write(b)
	if err == nil {
		c.ss.rtpOut.Add(1)
	}
	return n, err
}

func (s *server) end(ss *session) {
	if ss.ended.Swap(true) {
		return
	}
	s.mu.Lock()
	delete(s.sessions, ss.id)
	s.ended = append(s.ended, ss)
	if st := s.streams[ss.stream]; st != nil {
		if st.publisher == ss {
			delete(s.streams, ss.stream)
		}
		delete(st.players, ss.id)
	}
	s.mu.Unlock()
	go ss.pc.Close()
}

func (s *server) handleDelete(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodDelete {
		http.Error(w, "DELETE a session", http.StatusMethodNotAllowed)
		return
	}
	id := strings.TrimPrefix(r.URL.Path, "/session/")
	s.mu.Lock()
	ss := s.sessions[id]
	s.mu.Unlock()
	if ss == nil {
		http.Error(w, "no session "+id, http.StatusNotFound)
		return
	}
	s.end(ss)
	w.WriteHeader(http.StatusOK)
}

// sessionStats is one session in /stats.
type sessionStats struct {
	ID            string   `json:"id"`
	Role          string   `json:"role"`
	Stream        string   `json:"stream"`
	Connected     bool     `json:"connected"` // the peer connection reached "connected" (ICE and DTLS)
	DTLSConnected bool     `json:"dtls_connected"`
	Ended         bool     `json:"ended"`
	SelectedPair  string   `json:"selected_pair"`
	RTPIn         int64    `json:"rtp_in"` // a publisher's packets
	AudioIn       int64    `json:"audio_in"`
	VideoIn       int64    `json:"video_in"`
	RTPOut        int64    `json:"rtp_out"` // a player's packets
	RTCPIn        int64    `json:"rtcp_in"` // a player's RTCP packets
	Codecs        []string `json:"codecs"`  // a publisher's tracks
}

// statsReply: {"sessions": [sessionStats...]}, live ones first, then ended.
type statsReply struct {
	Sessions []sessionStats `json:"sessions"`
}

func (s *server) handleStats(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	var all []*session
	for _, ss := range s.sessions {
		all = append(all, ss)
	}
	all = append(all, s.ended...)
	s.mu.Unlock()
	reply := statsReply{Sessions: []sessionStats{}}
	for _, ss := range all {
		reply.Sessions = append(reply.Sessions, sessionStats{
			ID: ss.id, Role: ss.role, Stream: ss.stream, Connected: ss.connected.Load(),
			DTLSConnected: ss.dtlsConnected.Load(), Ended: ss.ended.Load(),
			SelectedPair: ss.selectedPair.Load().(string), RTPIn: ss.rtpIn.Load(), AudioIn: ss.audioIn.Load(),
			VideoIn: ss.videoIn.Load(), RTPOut: ss.rtpOut.Load(), RTCPIn: ss.rtcpIn.Load(),
			Codecs: ss.codecs.Load().([]string),
		})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(reply)
}

// h264StartsKeyframe: an RTP payload (RFC 6184) that starts an IDR or SPS: a
// single NAL unit of type 5 or 7, a STAP-A holding one, or the first FU-A
// fragment of one.
func h264StartsKeyframe(p []byte) bool {
	if len(p) < 1 {
		return false
	}
	key := func(t byte) bool { return t&0x1f == 5 || t&0x1f == 7 }
	switch t := p[0] & 0x1f; {
	case t >= 1 && t <= 23:
		return key(p[0])
	case t == 28:
		return len(p) >= 2 && p[1]&0x80 != 0 && key(p[1])
	case t == 24:
		for at := 1; at+2 < len(p); {
			n := int(p[at])<<8 | int(p[at+1])
			at += 2
			if n == 0 || at+n > len(p) {
				return false
			}
			if key(p[at]) {
				return true
			}
			at += n
		}
	}
	return false
}
