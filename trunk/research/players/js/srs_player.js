// Player page: builds the stream URL from the page's query string, plays .flv
// (and .ts) through mpegts.js and .m3u8 through hls.js, both on Media Source
// Extensions (Safari without MSE plays .m3u8 natively), and anything else with
// the browser's own <video> support. window.srsPlayer.state() is the playback
// state the black-box tests (and a curious user in the console) read.
(function () {
    'use strict';

    var RETRY_MS = 3000;

    var el = {
        form: document.getElementById('controls'),
        url: document.getElementById('url'),
        play: document.getElementById('play'),
        stop: document.getElementById('stop'),
        video: document.getElementById('video'),
        status: document.getElementById('status'),
        stats: document.getElementById('stats')
    };

    var player = null;      // the mpegts.js player, when one is playing
    var hls = null;         // the hls.js player, when one is playing
    var playing = false;    // the user wants the stream to play
    var retryTimer = null;
    var statsTimer = null;

    // What happened since the last open(): counted, not just shown, so a test
    // (or a user) can tell a smooth playback from one that stalled.
    var stats = null;
    var retries = 0;        // reopened after an error or the end, since the page loaded
    function resetStats(engine) {
        stats = {
            engine: engine,       // 'mpegts', 'hls.js', 'native' or ''
            started: false,       // a 'playing' event came
            playingEvents: 0,
            waiting: 0,           // 'waiting' events after playback started
            stalls: 0,            // hls.js buffer stalls (non-fatal)
            errors: [],           // fatal and non-fatal errors, newest last (at most 20)
            mediaOffset: null,    // media timestamp (s) of currentTime 0: hls.js initPTS / timescale
            codecs: '',           // as hls.js found them, e.g. 'avc1.64000d, mp4a.40.2'
            url: ''
        };
    }
    resetStats('');

    function noteError(text) {
        stats.errors.push(text);
        if (stats.errors.length > 20) stats.errors.shift();
    }

    function setStatus(text, isError) {
        el.status.textContent = text;
        el.status.className = isError ? 'error' : '';
    }

    // ?url=... wins; otherwise schema://server:port/app/stream[?vhost=...], SRS style.
    function urlFromQuery(query) {
        if (query.get('url')) return query.get('url');
        var schema = query.get('schema') || 'http';
        var server = query.get('server') || location.hostname || '127.0.0.1';
        var port = query.get('port');
        if (port === null) port = /^https?:$/.test(location.protocol) ? location.port : '8080';
        var app = query.get('app') || 'live';
        var stream = query.get('stream') || 'livestream.flv';
        if (stream.indexOf('.') < 0) stream += '.flv';
        var url = schema + '://' + server + (port ? ':' + port : '') + '/' + app + '/' + stream;
        if (query.get('vhost')) url += (url.indexOf('?') < 0 ? '?' : '&') + 'vhost=' + encodeURIComponent(query.get('vhost'));
        return url;
    }

    // 'flv' or 'mpegts' for what mpegts.js plays, '' for the browser's own playback.
    function containerOf(url) {
        var path;
        try {
            path = new URL(url, location.href).pathname.toLowerCase();
        } catch (e) {
            return null;
        }
        if (/\.flv$/.test(path)) return 'flv';
        if (/\.ts$/.test(path)) return 'mpegts';
        if (/\.m3u8$/.test(path)) return 'hls';
        return '';
    }

    function showStats() {
        var v = el.video;
        var parts = [];
        var q = v.getVideoPlaybackQuality ? v.getVideoPlaybackQuality() : null;
        if (q) parts.push('decoded frames ' + q.totalVideoFrames + ', dropped ' + q.droppedVideoFrames);
        if (v.videoWidth) parts.push('resolution ' + v.videoWidth + 'x' + v.videoHeight);
        if (v.buffered.length) {
            var latency = v.buffered.end(v.buffered.length - 1) - v.currentTime;
            parts.push('buffer ' + latency.toFixed(2) + ' s');
        }
        parts.push('time ' + v.currentTime.toFixed(1) + ' s');
        if (hls && hls.latency) parts.push('latency to playlist edge ' + hls.latency.toFixed(2) + ' s');
        if (stats.started) parts.push('stalls ' + (stats.waiting + stats.stalls));
        el.stats.textContent = parts.join(' · ');
    }

    function startVideo() {
        var p = el.video.play();
        if (!p || !p.catch) return;
        p.catch(function (err) {
            // Autoplay with sound is refused without a user gesture: retry muted.
            if (err && err.name === 'NotAllowedError' && !el.video.muted) {
                el.video.muted = true;
                setStatus('playing muted (the browser refused autoplay with sound): unmute with the controls');
                el.video.play().catch(function (e) { setStatus('cannot start playback: ' + e.message, true); });
            } else if (err && err.name !== 'AbortError') {
                setStatus('cannot start playback: ' + err.message, true);
            }
        });
    }

    function destroyPlayer() {
        if (retryTimer) {
            clearTimeout(retryTimer);
            retryTimer = null;
        }
        if (player) {
            try {
                player.pause();
                player.unload();
                player.detachMediaElement();
                player.destroy();
            } catch (e) {
                // already torn down by an error
            }
            player = null;
        }
        if (hls) {
            hls.destroy();
            hls = null;
        }
        el.video.removeAttribute('src');
        el.video.load();
    }

    function scheduleRetry(reason) {
        destroyPlayer();
        if (!playing) return;
        setStatus(reason + '; retrying in ' + RETRY_MS / 1000 + ' s', true);
        retries++;
        retryTimer = setTimeout(function () {
            retryTimer = null;
            if (playing) open(el.url.value.trim());
        }, RETRY_MS);
    }

    function openWithMpegts(url, type) {
        if (typeof window.mpegts === 'undefined') {
            setStatus('js/mpegts.js is missing: it is fetched from npm by make (needs nodejs and npm); run make again', true);
            return false;
        }
        if (!mpegts.getFeatureList().mseLivePlayback) {
            setStatus('this browser cannot play ' + type + ' streams: no Media Source Extensions with H.264', true);
            return false;
        }
        player = mpegts.createPlayer({ type: type, isLive: true, url: url }, {
            enableWorker: false,
            enableStashBuffer: false,      // hand data to the decoder as it arrives
            stashInitialSize: 128 * 1024,
            lazyLoad: false,               // a live stream must keep loading
            autoCleanupSourceBuffer: true, // drop what was played, memory stays flat
            liveSync: true,                // speed up a little when the buffer grows
            liveSyncMaxLatency: 1.5,
            liveSyncTargetLatency: 0.8
        });
        player.on(mpegts.Events.ERROR, function (type, detail, info) {
            var msg = (info && (info.msg || info.code)) || '';
            scheduleRetry('error: ' + type + ' ' + detail + (msg ? ' (' + msg + ')' : ''));
        });
        player.on(mpegts.Events.LOADING_COMPLETE, function () {
            scheduleRetry('the stream ended');
        });
        player.on(mpegts.Events.MEDIA_INFO, function (info) {
            var codecs = [info.videoCodec, info.audioCodec].filter(Boolean).join(', ');
            setStatus('playing ' + url + (codecs ? ' (' + codecs + ')' : ''));
        });
        player.attachMediaElement(el.video);
        player.load();
        return true;
    }

    function openWithHls(url) {
        var Hls = window.Hls;
        if (typeof Hls === 'undefined' || !Hls.isSupported()) {
            // Safari (iOS) has no MSE but plays HLS itself.
            if (el.video.canPlayType('application/vnd.apple.mpegurl')) {
                stats.engine = 'native';
                el.video.src = url;
                return true;
            }
            setStatus(typeof Hls === 'undefined'
                ? 'js/hls.min.js is missing: it is fetched from npm by make (needs nodejs and npm); run make again'
                : 'this browser cannot play HLS: no Media Source Extensions', true);
            return false;
        }
        stats.engine = 'hls.js';
        // lowLatencyMode: parts and blocking reloads are used when the
        // playlist offers them (LL-HLS); classic playlists play as usual.
        hls = new Hls({ lowLatencyMode: true, enableWorker: true, backBufferLength: 30 });
        hls.on(Hls.Events.INIT_PTS_FOUND, function (event, data) {
            if (data.timescale) stats.mediaOffset = data.initPTS / data.timescale;
        });
        hls.on(Hls.Events.BUFFER_CODECS, function (event, data) {
            // The codecs hls.js found in the segments (the playlist may not say).
            var codecs = [data.video && data.video.codec, data.audio && data.audio.codec].filter(Boolean);
            if (data.audiovideo) codecs.push(data.audiovideo.codec);
            if (codecs.length) stats.codecs = codecs.join(', ');
        });
        hls.on(Hls.Events.ERROR, function (event, data) {
            var text = data.type + ' ' + data.details + (data.fatal ? ' (fatal)' : '');
            if (data.details === Hls.ErrorDetails.BUFFER_STALLED_ERROR) stats.stalls++;
            noteError(text);
            if (data.fatal) scheduleRetry('error: ' + text);
        });
        hls.loadSource(url);
        hls.attachMedia(el.video);
        return true;
    }

    function open(url) {
        destroyPlayer();
        var type = containerOf(url);
        if (type === null) {
            setStatus('not a URL: ' + url, true);
            return;
        }
        resetStats(type === 'hls' ? '' : (type ? 'mpegts' : 'native'));
        stats.url = url;
        setStatus('connecting to ' + url);
        if (type === 'hls') {
            if (!openWithHls(url)) return;
        } else if (type) {
            if (!openWithMpegts(url, type)) return;
        } else {
            el.video.src = url;
        }
        startVideo();
    }

    function play() {
        var url = el.url.value.trim();
        if (!url) {
            setStatus('enter a stream URL', true);
            return;
        }
        playing = true;
        el.stop.disabled = false;
        var query = new URLSearchParams(location.search);
        query.delete('schema');
        query.delete('server');
        query.delete('port');
        query.delete('vhost');
        query.delete('app');
        query.delete('stream');
        query.set('url', url);
        history.replaceState(null, '', '?' + query.toString());
        open(url);
        if (!statsTimer) statsTimer = setInterval(showStats, 500);
    }

    function stop() {
        playing = false;
        destroyPlayer();
        el.stop.disabled = true;
        if (statsTimer) {
            clearInterval(statsTimer);
            statsTimer = null;
        }
        setStatus('stopped');
    }

    el.form.addEventListener('submit', function (e) {
        e.preventDefault();
        play();
    });
    el.stop.addEventListener('click', stop);
    el.video.addEventListener('playing', function () {
        stats.started = true;
        stats.playingEvents++;
        // mpegts.js says what it plays in its MEDIA_INFO; the others here.
        if (stats.engine === 'hls.js' || stats.engine === 'native') {
            setStatus('playing ' + stats.url + (stats.codecs ? ' (' + stats.codecs + ')' : ''));
        }
    });
    el.video.addEventListener('waiting', function () {
        if (stats.started) stats.waiting++;
    });
    el.video.addEventListener('error', function () {
        if (!player && !hls && playing && el.video.error) setStatus('the browser cannot play this URL: ' + el.video.error.message, true);
    });

    window.srsPlayer = {
        // A copy of the counters plus the clocks, taken now. latency is hls.js's
        // distance to the playlist's live edge; playingDate needs
        // EXT-X-PROGRAM-DATE-TIME in the playlist.
        state: function () {
            var v = el.video;
            var date = hls ? hls.playingDate : null;
            var copy = JSON.parse(JSON.stringify(stats));
            copy.playing = stats.started && !v.paused && !v.ended && v.readyState > 2;
            copy.retries = retries;
            copy.currentTime = v.currentTime;
            var q = v.getVideoPlaybackQuality ? v.getVideoPlaybackQuality() : null;
            copy.frames = q ? q.totalVideoFrames : null;
            copy.width = v.videoWidth;
            copy.height = v.videoHeight;
            copy.paused = v.paused;
            copy.readyState = v.readyState;
            copy.videoError = v.error ? v.error.message : null;
            copy.latency = hls ? hls.latency : null;
            copy.targetLatency = hls ? hls.targetLatency : null;
            copy.playingDate = date ? date.getTime() : null;
            copy.now = Date.now();
            copy.hlsVersion = window.Hls ? window.Hls.version : null;
            return copy;
        }
    };

    var query = new URLSearchParams(location.search);
    el.url.value = urlFromQuery(query);
    if (query.get('autostart') === 'true' || query.get('autostart') === '1') play();
})();
