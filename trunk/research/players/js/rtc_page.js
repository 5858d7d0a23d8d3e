// WebRTC publish and play pages: one controller for whip.html, whep.html,
// rtc_publisher.html and rtc_player.html. Each page calls
// RtcPage.run({role: 'publish'|'play', signal: 'whip'|'srs'}).
//   whip: POST the SDP offer to /rtc/v1/whip/ (publish) or /rtc/v1/whep/
//         (play) and keep the Location header for the DELETE that ends it.
//   srs:  SRS's JSON API, POST {api, tid, streamurl, clientip, sdp} to
//         /rtc/v1/publish/ or /rtc/v1/play/; the answer is {code, sdp, sessionid}.
// The query string takes SRS's page parameters, so links made for SRS's pages
// keep working: url, autostart, app, stream, server (API host), api or port
// (API port, or host:port), schema, vhost, eip, codec; plus ours: source
// (camera|screen) for the publisher. The video codec (H.264, VP8, AV1 for
// players, or the browser's choice) is set with
// RTCRtpTransceiver.setCodecPreferences. For
// tests the page exposes window.stats() (the latest getStats() summary,
// refreshed twice a second) and window.rtcState() (status text, connection
// state, last error, source and codec).
// A player says "playing" only once a frame or an audio packet arrived;
// before, "connected, no media yet", or why it gets none: the server admits
// players of a stream that cannot reach WebRTC (published over RTMP with
// rtmp_to_rtc off, as SRS does) and says why in the WHEP answer's
// X-SRS-No-Media header (JSON API: no_media); while no media comes, the page
// also reads the stream's "webrtc" from /api/v1/streams every few seconds
// (a publisher that came after the player).
(function () {
    'use strict';

    var DEFAULT_API_PORT = '1985';     // SRS's http_api port
    var STATS_MS = 500;
    var STREAM_CHECK_MS = 2000;        // how often a player without media asks the API about its stream
    // Stream URL knobs the server reads from the WHIP/WHEP query (candidate, codec).
    var PASS_THROUGH = ['vhost', 'eip', 'codec'];
    // Codecs that are not a video codec of their own: kept whatever is chosen.
    var HELPER_CODECS = /^video\/(rtx|red|ulpfec|flexfec-03)$/i;

    function query() {
        return new URLSearchParams(location.search);
    }

    // host:port of the HTTP API. ?api= is host:port (ours) or a port (SRS's
    // pages, with ?server= the host); ?port= is SRS's other spelling of the
    // port. The host defaults to this page's.
    function apiHost(q) {
        var api = q.get('api') || '';
        var host = q.get('server') || location.hostname || '127.0.0.1';
        if (/^\d+$/.test(api)) return host + ':' + api;
        if (api) return api.replace(/^https?:\/\//, '').replace(/\/.*$/, '');
        var port = /^\d+$/.test(q.get('port') || '') ? q.get('port') : DEFAULT_API_PORT;
        return host + ':' + port;
    }

    function httpSchema(q) {
        if (q.get('schema')) return q.get('schema');
        return location.protocol === 'https:' ? 'https' : 'http';
    }

    // webrtc://host[:port]/app/stream[?k=v] -> its parts; the port is the API's.
    function parseWebrtcUrl(url) {
        var m = /^webrtc:\/\/([^/:?#]+)(?::(\d+))?\/(.+)\/([^/?#]+)(\?[^#]*)?$/.exec(url);
        if (!m) throw new Error('not a webrtc://host[:port]/app/stream URL: ' + url);
        return { host: m[1], port: m[2] || DEFAULT_API_PORT, app: m[3], stream: m[4], search: m[5] || '' };
    }

    // &k=v for the knobs of PASS_THROUGH present in the page's query.
    function passThrough(q) {
        var out = '';
        PASS_THROUGH.forEach(function (k) {
            if (q.get(k)) out += '&' + k + '=' + encodeURIComponent(q.get(k));
        });
        return out;
    }

    // The URL shown in the form, from the query: ?url= wins, else app/stream/api.
    function urlFromQuery(q, cfg) {
        if (q.get('url')) return q.get('url');
        var app = q.get('app') || 'live';
        var stream = q.get('stream') || 'livestream';
        var api = apiHost(q);
        var extra = passThrough(q);
        if (cfg.signal === 'srs') {
            return 'webrtc://' + api + '/' + app + '/' + stream + (extra ? '?' + extra.slice(1) : '');
        }
        var path = cfg.role === 'publish' ? '/rtc/v1/whip/' : '/rtc/v1/whep/';
        return httpSchema(q) + '://' + api + path + '?app=' + encodeURIComponent(app) +
            '&stream=' + encodeURIComponent(stream) + extra;
    }

    // A webrtc:// URL typed in a WHIP/WHEP page: the same stream's endpoint.
    function whipUrlOf(url, cfg, q) {
        if (!/^webrtc:\/\//.test(url)) return url;
        var u = parseWebrtcUrl(url);
        var path = cfg.role === 'publish' ? '/rtc/v1/whip/' : '/rtc/v1/whep/';
        return httpSchema(q) + '://' + u.host + ':' + u.port + path + '?app=' + encodeURIComponent(u.app) +
            '&stream=' + encodeURIComponent(u.stream) + (u.search ? '&' + u.search.slice(1) : '');
    }

    // The stream a signalling URL names, and its server's API: {api, app, stream}.
    function streamOf(url, cfg, q) {
        if (cfg.signal === 'srs') {
            var w = parseWebrtcUrl(url);
            return { api: httpSchema(q) + '://' + w.host + ':' + w.port, app: w.app, stream: w.stream };
        }
        var u = new URL(url, location.href);
        return { api: u.origin, app: u.searchParams.get('app') || 'live',
                 stream: u.searchParams.get('stream') || 'livestream' };
    }

    // The API's "webrtc" of the stream ({play, reason}), or null when the API
    // does not say (not listed, several vhosts, an API of another server).
    function fetchStreamReach(api, id) {
        return fetch(api + '/api/v1/streams?count=1000', { cache: 'no-store' }).then(function (r) {
            return r.ok ? r.json() : null;
        }).then(function (j) {
            var found = ((j && j.streams) || []).filter(function (s) {
                return s.app === id.app && s.name === id.stream && s.webrtc;
            });
            return found.length === 1 ? found[0].webrtc : null;
        }, function () {
            return null;
        });
    }

    // 'h264', 'vp8', 'av1' or '' (the browser's choice) from ?codec= or the form.
    function codecChoice(value) {
        var v = String(value || '').toLowerCase();
        if (v === 'h264' || v === 'avc') return 'h264';
        if (v === 'vp8') return 'vp8';
        if (v === 'av1') return 'av1';
        return '';
    }

    function fetchChecked(url, init, what) {
        return fetch(url, init).then(function (r) {
            return r.text().then(function (text) {
                if (!r.ok) throw new Error(what + ': HTTP ' + r.status + ' ' + text.slice(0, 300));
                return { response: r, text: text };
            });
        });
    }

    // WHIP/WHEP: the answer and the resource to DELETE.
    function signalWhip(url, offer) {
        return fetchChecked(url, {
            method: 'POST', body: offer, headers: { 'Content-Type': 'application/sdp' }
        }, 'POST ' + url).then(function (res) {
            var loc = res.response.headers.get('Location');
            return { sdp: res.text, location: loc ? new URL(loc, url).href : null,
                     noMedia: res.response.headers.get('X-SRS-No-Media') };
        });
    }

    // SRS's JSON API; errors come back as HTTP 200 with a non-zero code.
    function signalSrs(role, webrtcUrl, offer, q) {
        var u = parseWebrtcUrl(webrtcUrl);
        var api = httpSchema(q) + '://' + u.host + ':' + u.port + '/rtc/v1/' + role + '/' + u.search;
        var body = {
            api: api,
            tid: Number(Math.floor(Math.random() * 0x7fffffff)).toString(16),
            streamurl: webrtcUrl,
            clientip: null,
            sdp: offer
        };
        return fetchChecked(api, {
            method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' }
        }, 'POST ' + api).then(function (res) {
            var reply;
            try {
                reply = JSON.parse(res.text);
            } catch (e) {
                throw new Error('the API answered something else than JSON: ' + res.text.slice(0, 200));
            }
            if (reply.code !== 0) throw new Error('the API refused: code ' + reply.code + ' ' + res.text.slice(0, 300));
            return { sdp: reply.sdp, sessionid: reply.sessionid, noMedia: reply.no_media || null };
        });
    }

    // The video codec preference. A publisher offers only `codec` (plus
    // RTX/RED/FEC), so the server cannot answer another one; a player puts it
    // first and keeps the rest, to still play a stream published in another
    // codec. '' leaves the browser's order. Returns an error text when the
    // browser cannot do what was asked, else null.
    function applyCodec(transceiver, codec, role) {
        if (!codec) return null;
        var Caps = role === 'publish' ? window.RTCRtpSender : window.RTCRtpReceiver;
        if (!transceiver.setCodecPreferences || !Caps || !Caps.getCapabilities) {
            return 'this browser cannot choose the codec (no setCodecPreferences)';
        }
        var caps = Caps.getCapabilities('video');
        var all = caps ? caps.codecs : [];
        var want = new RegExp('^video/' + codec + '$', 'i');
        var chosen = all.filter(function (c) { return want.test(c.mimeType); });
        if (!chosen.length) return 'this browser cannot ' + (role === 'publish' ? 'send ' : 'receive ') + codec;
        var rest = all.filter(function (c) {
            return !want.test(c.mimeType) && (role !== 'publish' || HELPER_CODECS.test(c.mimeType));
        });
        transceiver.setCodecPreferences(chosen.concat(rest));
        return null;
    }

    // The media to publish: the camera, or the screen (getDisplayMedia, which
    // needs a click on Publish) with the microphone when there is one.
    function openMedia(source) {
        var md = navigator.mediaDevices;
        if (!md) return Promise.reject(new Error('no media devices (the page must be on https or localhost)'));
        if (source !== 'screen') return md.getUserMedia({ video: true, audio: true });
        if (!md.getDisplayMedia) return Promise.reject(new Error('this browser cannot capture the screen'));
        return md.getDisplayMedia({ video: true, audio: false }).then(function (screen) {
            return md.getUserMedia({ audio: true }).then(function (mic) {
                mic.getAudioTracks().forEach(function (t) { screen.addTrack(t); });
                return screen;
            }, function () {
                return screen;  // no microphone: the screen alone
            });
        }, function (e) {
            var hint = e && e.name === 'InvalidStateError' ? ' (press Publish: screen capture needs a click)' : '';
            throw new Error('screen capture failed: ' + (e && e.name ? e.name + ': ' : '') +
                            (e && e.message ? e.message : e) + hint);
        });
    }

    // The getStats() fields the tests and the page show, by kind and direction.
    function summarize(report) {
        var s = { video: {}, audio: {}, transport: {} };
        report.forEach(function (r) {
            if (r.type === 'inbound-rtp' && (r.kind === 'video' || r.kind === 'audio')) {
                s[r.kind].in = r;
            } else if (r.type === 'outbound-rtp' && (r.kind === 'video' || r.kind === 'audio')) {
                s[r.kind].out = r;
            } else if (r.type === 'codec') {
                s.transport['codec-' + r.id] = r.mimeType;
            } else if (r.type === 'candidate-pair' && r.nominated) {
                s.transport.pair = r.state;
            }
        });
        var vin = s.video.in || {}, vout = s.video.out || {}, ain = s.audio.in || {}, aout = s.audio.out || {};
        var codecOf = function (r) { return r && r.codecId ? (s.transport['codec-' + r.codecId] || null) : null; };
        return {
            time: Date.now(),
            framesDecoded: vin.framesDecoded || 0,
            framesReceived: vin.framesReceived || 0,
            frameWidth: vin.frameWidth || 0,
            frameHeight: vin.frameHeight || 0,
            videoPacketsReceived: vin.packetsReceived || 0,
            videoPacketsLost: vin.packetsLost || 0,
            nackCount: vin.nackCount || 0,
            keyFramesDecoded: vin.keyFramesDecoded || 0,
            videoCodec: codecOf(s.video.in) || codecOf(s.video.out),
            audioPacketsReceived: ain.packetsReceived || 0,
            audioCodec: codecOf(s.audio.in) || codecOf(s.audio.out),
            framesEncoded: vout.framesEncoded || 0,
            framesSent: vout.framesSent || 0,
            sentFrameWidth: vout.frameWidth || 0,
            sentFrameHeight: vout.frameHeight || 0,
            videoPacketsSent: vout.packetsSent || 0,
            audioPacketsSent: aout.packetsSent || 0,
            candidatePair: s.transport.pair || null
        };
    }

    function run(cfg) {
        var el = {
            form: document.getElementById('controls'),
            url: document.getElementById('url'),
            start: document.getElementById('start'),
            stop: document.getElementById('stop'),
            video: document.getElementById('video'),
            status: document.getElementById('status'),
            stats: document.getElementById('stats'),
            source: document.getElementById('source'),   // publisher pages: camera or screen
            codec: document.getElementById('codec')      // h264, vp8, av1 (players) or auto
        };
        var q = query();
        var pc = null, media = null, resource = null, statsTimer = null;
        var last = summarize(new Map());
        var state = { status: 'idle', connection: 'new', error: null, location: null, sessionid: null,
                      source: null, codec: null, warning: null, offer: null, media: false, noMedia: null };
        var streamId = null, streamCheckAt = 0;

        function setStatus(text, isError) {
            state.status = text;
            if (isError) state.error = text;
            el.status.textContent = text;
            el.status.className = isError ? 'error' : '';
        }

        // A connected player's status: playing once media came, else why not (yet).
        function playStatus() {
            if (state.media) return 'playing';
            if (state.noMedia) return 'connected, no media: ' + state.noMedia;
            return 'connected, no media yet';
        }

        function updatePlayStatus() {
            if (state.connection !== 'connected' || state.error) return;
            setStatus(playStatus());
            el.status.className = !state.media && state.noMedia ? 'warning' : '';
        }

        // While no media comes: what the API says of the stream now.
        function checkStream(mine) {
            var now = Date.now();
            if (state.media || !streamId || !streamId.api || now < streamCheckAt) return;
            streamCheckAt = now + STREAM_CHECK_MS;
            fetchStreamReach(streamId.api, streamId).then(function (reach) {
                if (mine !== pc || state.media || !reach) return;
                state.noMedia = reach.play === false ? reach.reason || 'the server sends none' : null;
                updatePlayStatus();
            });
        }

        function refreshStats() {
            if (!pc) return Promise.resolve(last);
            var mine = pc;
            return pc.getStats().then(function (report) {
                last = summarize(report);
                if (cfg.role === 'play' && mine === pc) {
                    if (last.framesDecoded > 0 || last.audioPacketsReceived > 0) {
                        state.media = true;
                        state.noMedia = null;
                    }
                    if (state.connection === 'connected') checkStream(mine);
                    updatePlayStatus();
                }
                if (cfg.role === 'play') {
                    el.stats.textContent = 'video ' + last.frameWidth + 'x' + last.frameHeight + ' ' +
                        last.framesDecoded + ' frames decoded, ' + last.videoPacketsLost + ' lost; audio ' +
                        last.audioPacketsReceived + ' packets';
                } else {
                    el.stats.textContent = 'video ' + last.sentFrameWidth + 'x' + last.sentFrameHeight + ' ' +
                        last.framesSent + ' frames sent; audio ' + last.audioPacketsSent + ' packets';
                }
                return last;
            });
        }

        function stop() {
            if (statsTimer) clearInterval(statsTimer);
            statsTimer = null;
            if (resource) {
                // Best effort: the server also ends the session on its STUN timeout.
                fetch(resource, { method: 'DELETE' }).catch(function () {});
                resource = null;
            }
            if (pc) pc.close();
            pc = null;
            if (media) media.getTracks().forEach(function (t) { t.stop(); });
            media = null;
            el.video.srcObject = null;
            el.start.disabled = false;
            el.stop.disabled = true;
            state.connection = 'closed';
            setStatus('stopped');
        }

        function start() {
            stop();
            var url = el.url.value.trim();
            if (cfg.signal === 'whip') url = whipUrlOf(url, cfg, q);
            var source = el.source && el.source.value === 'screen' ? 'screen' : 'camera';
            var codec = codecChoice(el.codec ? el.codec.value : 'h264');
            state.source = cfg.role === 'publish' ? source : null;
            state.codec = codec || 'auto';
            state.warning = null;
            state.offer = null;
            state.media = false;
            state.noMedia = null;
            streamId = null;
            streamCheckAt = Date.now() + STREAM_CHECK_MS;
            if (cfg.role === 'play') {
                try {
                    streamId = streamOf(url, cfg, q);
                } catch (e) {
                    streamId = null;  // a bad URL: signalling reports it
                }
            }
            el.start.disabled = true;
            el.stop.disabled = false;
            state.error = null;
            pc = new RTCPeerConnection({ iceServers: [] });
            var mine = pc;
            pc.addEventListener('connectionstatechange', function () {
                state.connection = mine.connectionState;
                if (mine !== pc) return;
                if (mine.connectionState === 'connected') {
                    if (cfg.role === 'publish') setStatus('publishing');
                    else updatePlayStatus();
                }
                if (mine.connectionState === 'failed') setStatus('connection failed (ICE or DTLS)', true);
            });
            var ready;
            if (cfg.role === 'publish') {
                setStatus(source === 'screen' ? 'opening the screen' : 'opening camera and microphone');
                ready = openMedia(source).then(function (stream) {
                    if (mine !== pc) {
                        stream.getTracks().forEach(function (t) { t.stop(); });
                        throw new Error('stopped');
                    }
                    media = stream;
                    el.video.muted = true;
                    el.video.srcObject = stream;
                    stream.getTracks().forEach(function (track) {
                        var t = mine.addTransceiver(track, { direction: 'sendonly', streams: [stream] });
                        if (track.kind === 'video') {
                            state.warning = applyCodec(t, codec, 'publish');
                            // Keep the camera's size: tests compare it with the player's.
                            var p = t.sender.getParameters();
                            p.degradationPreference = 'maintain-resolution';
                            t.sender.setParameters(p).catch(function () {});
                        }
                    });
                });
            } else {
                var remote = new MediaStream();
                el.video.srcObject = remote;
                pc.addEventListener('track', function (e) { remote.addTrack(e.track); });
                state.warning = applyCodec(pc.addTransceiver('video', { direction: 'recvonly' }), codec, 'play');
                pc.addTransceiver('audio', { direction: 'recvonly' });
                ready = Promise.resolve();
            }
            return ready.then(function () {
                return mine.createOffer();
            }).then(function (offer) {
                return mine.setLocalDescription(offer);
            }).then(function () {
                setStatus('signalling');
                var sdp = mine.localDescription.sdp;
                state.offer = sdp;
                if (cfg.signal === 'srs') return signalSrs(cfg.role, url, sdp, q);
                return signalWhip(url, sdp);
            }).then(function (answer) {
                if (mine !== pc) return null;
                resource = answer.location || null;
                state.location = resource;
                state.sessionid = answer.sessionid || null;
                state.noMedia = answer.noMedia || null;
                setStatus(state.noMedia ? 'connecting (the server says: no media, ' + state.noMedia + ')' : 'connecting');
                return mine.setRemoteDescription({ type: 'answer', sdp: answer.sdp });
            }).then(function () {
                if (mine !== pc) return;
                statsTimer = setInterval(refreshStats, STATS_MS);
                if (cfg.role === 'play') {
                    var p = el.video.play();
                    if (p && p.catch) p.catch(function () {});
                }
            }).catch(function (e) {
                if (mine !== pc) return;
                setStatus(String(e && e.message ? e.message : e), true);
                el.start.disabled = false;
            });
        }

        window.stats = function () { return last; };
        window.statsAsync = refreshStats;
        window.rtcState = function () { return state; };
        window.rtcStop = stop;

        el.url.value = urlFromQuery(q, cfg);
        if (el.codec) el.codec.value = q.get('codec') ? (codecChoice(q.get('codec')) || 'auto') : 'h264';
        if (el.source && q.get('source') === 'screen') el.source.value = 'screen';
        el.form.addEventListener('submit', function (e) {
            e.preventDefault();
            start();
        });
        el.stop.addEventListener('click', stop);
        window.addEventListener('pagehide', stop);
        // Autostart once the page has loaded: a <video> playing a stream that
        // sends nothing yet would otherwise hold the page's load event.
        if (q.get('autostart') === 'true') {
            if (document.readyState === 'complete') start();
            else window.addEventListener('load', function () { start(); }, { once: true });
        }
    }

    window.RtcPage = { run: run, parseWebrtcUrl: parseWebrtcUrl, summarize: summarize, urlFromQuery: urlFromQuery };
})();
