// HTTP-FLV player page: builds the stream URL from the page's query string,
// plays .flv (and .ts) through mpegts.js on Media Source Extensions, and
// anything else with the browser's own <video> support.
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
    var playing = false;    // the user wants the stream to play
    var retryTimer = null;
    var statsTimer = null;

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
        el.video.removeAttribute('src');
        el.video.load();
    }

    function scheduleRetry(reason) {
        destroyPlayer();
        if (!playing) return;
        setStatus(reason + '; retrying in ' + RETRY_MS / 1000 + ' s', true);
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

    function open(url) {
        destroyPlayer();
        var type = containerOf(url);
        if (type === null) {
            setStatus('not a URL: ' + url, true);
            return;
        }
        setStatus('connecting to ' + url);
        if (type) {
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
    el.video.addEventListener('error', function () {
        if (!player && playing && el.video.error) setStatus('the browser cannot play this URL: ' + el.video.error.message, true);
    });

    var query = new URLSearchParams(location.search);
    el.url.value = urlFromQuery(query);
    if (query.get('autostart') === 'true' || query.get('autostart') === '1') play();
})();
