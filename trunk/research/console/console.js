// The landing page's console: the server's summary, its live streams with a
// play link per protocol, and its clients with a kick button, read from the
// HTTP API every few seconds. The API is ?api= (host:port or a URL), else this
// page's host on port 1985; it answers CORS requests when
// http_api.crossdomain is on (the default). Every failure (API unreachable,
// an error reply, a refused kick) is shown in the page, never thrown: the
// next refresh tries again. For tests the page exposes window.consoleState().
// A stream the server says no WebRTC player gets media of (its "webrtc":
// {play: false, reason}, e.g. published over RTMP with rtmp_to_rtc off) has
// no WHEP link but the reason; servers without the field get the link.
(function () {
    'use strict';

    var DEFAULT_API_PORT = '1985';    // SRS's http_api port
    var DEFAULT_REFRESH_S = 2.5;
    var FETCH_TIMEOUT_MS = 2000;
    var LIST_COUNT = 1000;            // the API pages lists by 10 unless asked

    var q = new URLSearchParams(location.search);
    var el = {
        apiForm: document.getElementById('api-form'),
        api: document.getElementById('api'),
        apiStatus: document.getElementById('api-status'),
        error: document.getElementById('error'),
        summary: document.getElementById('summary'),
        streams: document.querySelector('#streams tbody'),
        noStreams: document.getElementById('no-streams'),
        clients: document.querySelector('#clients tbody'),
        noClients: document.getElementById('no-clients')
    };
    var state = { api: null, refreshes: 0, ok: false, error: null, summary: null, streams: [], clients: [],
                  kicked: [] };
    var timer = null;
    var inFlight = false;

    function pageHost() {
        return location.hostname || '127.0.0.1';
    }

    // 'host:port' or 'http(s)://host:port[/]' -> 'http(s)://host:port'.
    function apiBase(text) {
        var t = String(text || '').trim().replace(/\/+$/, '');
        if (!t) t = pageHost() + ':' + DEFAULT_API_PORT;
        if (!/^https?:\/\//i.test(t)) t = (location.protocol === 'https:' ? 'https' : 'http') + '://' + t;
        return t;
    }

    // Where players reach the media: HTTP-FLV on this page's server; RTMP on
    // this host, on the port the stream's publisher connected to (its tcUrl),
    // 1935 (left out) when it has none.
    function httpHost() {
        return q.get('http') || location.host || '127.0.0.1:8080';
    }

    function rtmpHost(s) {
        if (q.get('rtmp')) return q.get('rtmp');
        var m = /^rtmps?:\/\/[^/:]+:(\d+)/i.exec(s.tcUrl || '');
        return pageHost() + (m && m[1] !== '1935' ? ':' + m[1] : '');
    }

    function apiHostPort(base) {
        return base.replace(/^https?:\/\//i, '');
    }

    // GET/DELETE with a time limit; resolves to the JSON reply, rejects with a readable Error.
    function call(method, path) {
        var url = state.api + path;
        var ctl = window.AbortController ? new AbortController() : null;
        var t = ctl ? setTimeout(function () { ctl.abort(); }, FETCH_TIMEOUT_MS) : null;
        return fetch(url, { method: method, signal: ctl ? ctl.signal : undefined, cache: 'no-store' }).then(
            function (r) {
                return r.text().then(function (text) {
                    var j = null;
                    try { j = JSON.parse(text); } catch (e) { /* not JSON: reported below */ }
                    if (!r.ok || !j || (j.code !== undefined && j.code !== 0)) {
                        throw new Error(method + ' ' + path + ': HTTP ' + r.status +
                                        (j && j.code ? ' code ' + j.code : '') + ' ' + text.slice(0, 200));
                    }
                    return j;
                });
            },
            function (e) {
                var why = e && e.name === 'AbortError' ? 'no answer in ' + FETCH_TIMEOUT_MS / 1000 + ' s'
                                                       : (e && e.message ? e.message : String(e));
                throw new Error('the HTTP API at ' + state.api + ' is unreachable (' + why + ')');
            }).finally(function () {
                if (t) clearTimeout(t);
            });
    }

    function node(tag, attrs, children) {
        var n = document.createElement(tag);
        Object.keys(attrs || {}).forEach(function (k) {
            if (k === 'text') n.textContent = attrs[k];
            else if (k === 'className') n.className = attrs[k];
            else n.setAttribute(k, attrs[k]);
        });
        (children || []).forEach(function (c) {
            n.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
        });
        return n;
    }

    function showError(text) {
        state.error = text;
        el.error.textContent = text || '';
        el.error.hidden = !text;
    }

    function duration(seconds) {
        var s = Math.floor(Number(seconds) || 0);
        var d = Math.floor(s / 86400), h = Math.floor(s / 3600) % 24, m = Math.floor(s / 60) % 60;
        return (d ? d + 'd ' : '') + (d || h ? h + 'h ' : '') + (d || h || m ? m + 'm ' : '') + (s % 60) + 's';
    }

    function percent(fraction) {
        return (Number(fraction || 0) * 100).toFixed(1) + '%';
    }

    // The play URLs of one stream, by protocol.
    function playLinks(s, vhostName) {
        var app = s.app, stream = s.name;
        var api = apiHostPort(state.api);
        var colon = api.lastIndexOf(':');
        var vhostQuery = vhostName && vhostName !== '__defaultVhost__' ? 'vhost=' + encodeURIComponent(vhostName) : '';
        var flv = (location.protocol === 'https:' ? 'https' : 'http') + '://' + httpHost() + '/' + app + '/' +
                  stream + '.flv' + (vhostQuery ? '?' + vhostQuery : '');
        // SRS's page parameters: server (the API's host) and api (its port), so SRS's own pages read them too.
        var whep = 'players/whep.html?autostart=true&app=' + encodeURIComponent(app) + '&stream=' +
                   encodeURIComponent(stream) + '&server=' + encodeURIComponent(colon > 0 ? api.slice(0, colon) : api) +
                   '&api=' + encodeURIComponent(colon > 0 ? api.slice(colon + 1) : DEFAULT_API_PORT) +
                   '&schema=' + (/^https:/i.test(state.api) ? 'https' : 'http') +
                   (vhostQuery ? '&' + vhostQuery : '');
        return {
            whep: whep,
            flv: flv,
            flvPage: 'players/srs_player.html?autostart=true&url=' + encodeURIComponent(flv),
            rtmp: 'rtmp://' + rtmpHost(s) + '/' + app + '/' + stream + (vhostQuery ? '?' + vhostQuery : '')
        };
    }

    function codecs(s) {
        var parts = [];
        if (s.video) {
            parts.push(s.video.codec + (s.video.profile ? ' ' + s.video.profile : '') +
                       (s.video.width ? ' ' + s.video.width + 'x' + s.video.height : ''));
        }
        if (s.audio) {
            parts.push(s.audio.codec + (s.audio.sample_rate ? ' ' + s.audio.sample_rate + 'Hz' : ''));
        }
        return parts.join(', ') || '-';
    }

    function kbps(k) {
        return (k ? k.recv_30s : 0) + ' / ' + (k ? k.send_30s : 0);
    }

    function renderSummary(data, streams, clients) {
        var self = data.self || {}, sys = data.system || {};
        var recv = 0, send = 0;
        streams.forEach(function (s) {
            recv += s.kbps ? s.kbps.recv_30s : 0;
            send += s.kbps ? s.kbps.send_30s : 0;
        });
        var rows = [
            ['version', self.version], ['pid', self.pid], ['uptime', duration(self.srs_uptime)],
            ['cpu', percent(self.cpu_percent)],
            ['mem', ((self.mem_kbyte || 0) / 1024).toFixed(1) + ' MB (' + percent(self.mem_percent) + ')'],
            ['kbps in / out', recv + ' / ' + send], ['conns', sys.conn_srs !== undefined ? sys.conn_srs : clients.length],
            ['streams', streams.length]
        ];
        el.summary.textContent = '';
        rows.forEach(function (r) {
            el.summary.appendChild(node('dt', { text: r[0] }));
            el.summary.appendChild(node('dd', { text: String(r[1]), 'data-key': r[0] }));
        });
    }

    // The WHEP link, or why a WebRTC player would get nothing of this stream.
    function whepCell(webrtc, href) {
        if (webrtc && webrtc.play === false) {
            return node('span', { className: 'no-whep', title: 'no WHEP link: a WebRTC player gets no media',
                                  text: 'WebRTC: off (' + (webrtc.reason || 'the server says so') + ')' });
        }
        var a = node('a', { href: href, className: 'play-whep', target: '_blank', text: 'WHEP' });
        if (webrtc && webrtc.reason) a.title = webrtc.reason;
        return a;
    }

    function renderStreams(streams, vhosts) {
        el.streams.textContent = '';
        streams.forEach(function (s) {
            var vhostName = vhosts[s.vhost] || s.vhost;
            var links = playLinks(s, vhostName);
            var rtmp = node('input', { type: 'text', readonly: 'readonly', value: links.rtmp, className: 'rtmp-url',
                                       size: String(Math.min(links.rtmp.length, 40)) });
            var copy = node('button', { type: 'button', className: 'copy', text: 'copy' });
            copy.addEventListener('click', function () {
                rtmp.select();
                var done = function () { copy.textContent = 'copied'; };
                if (navigator.clipboard) navigator.clipboard.writeText(links.rtmp).then(done, function () {});
                else if (document.execCommand('copy')) done();
            });
            var play = node('td', { className: 'play' }, [
                whepCell(s.webrtc, links.whep), ' ',
                node('a', { href: links.flvPage, className: 'play-flv', 'data-url': links.flv, target: '_blank',
                            text: 'HTTP-FLV' }), ' ',
                rtmp, copy
            ]);
            var live = s.publish && s.publish.active;
            el.streams.appendChild(node('tr', { 'data-stream': s.name, 'data-id': s.id }, [
                node('td', { text: s.name }), node('td', { text: s.app }), node('td', { text: vhostName }),
                node('td', { text: live ? 'yes' : 'no', className: live ? 'yes' : 'no' }),
                node('td', { text: String(s.clients) }), node('td', { text: codecs(s) }),
                node('td', { text: kbps(s.kbps) }), play
            ]));
        });
        el.noStreams.hidden = streams.length > 0;
    }

    function renderClients(clients) {
        el.clients.textContent = '';
        clients.forEach(function (c) {
            var kick = node('button', { type: 'button', className: 'kick', text: 'kick', 'data-id': c.id });
            kick.addEventListener('click', function () { kickClient(c.id, kick); });
            var type = c.type + (c.transport ? ' (' + c.transport + ')' : '');
            el.clients.appendChild(node('tr', { 'data-client': c.id }, [
                node('td', { text: c.id }), node('td', { text: c.ip }), node('td', { text: type }),
                node('td', { text: c.url }), node('td', { text: c.publish ? 'yes' : 'no' }),
                node('td', { text: duration(c.alive) }), node('td', {}, [kick])
            ]));
        });
        el.noClients.hidden = clients.length > 0;
    }

    // HTTP DELETE /api/v1/clients/ID, then a refresh to show it gone.
    function kickClient(id, button) {
        button.disabled = true;
        return call('DELETE', '/api/v1/clients/' + encodeURIComponent(id)).then(function () {
            state.kicked.push(id);
        }).catch(function (e) {
            showError('kick ' + id + ' failed: ' + e.message);
            button.disabled = false;
        }).then(refresh);
    }

    function refresh() {
        if (inFlight) return Promise.resolve();
        inFlight = true;
        var n = '?count=' + LIST_COUNT;
        return Promise.all([call('GET', '/api/v1/summaries'), call('GET', '/api/v1/streams' + n),
                            call('GET', '/api/v1/clients' + n),
                            call('GET', '/api/v1/vhosts').catch(function () { return { vhosts: [] }; })])
            .then(function (r) {
                var summary = r[0].data || {}, streams = r[1].streams || [], clients = r[2].clients || [];
                var vhosts = {};
                (r[3].vhosts || []).forEach(function (v) { vhosts[v.id] = v.name; });
                state.summary = summary;
                state.streams = streams;
                state.clients = clients;
                state.ok = true;
                renderSummary(summary, streams, clients);
                renderStreams(streams, vhosts);
                renderClients(clients);
                el.apiStatus.textContent = 'updated ' + new Date().toLocaleTimeString();
                el.apiStatus.className = '';
                if (state.error && state.error.indexOf('kick ') !== 0) showError(null);
            })
            .catch(function (e) {
                state.ok = false;
                showError(e && e.message ? e.message : String(e));
                el.apiStatus.textContent = 'API unreachable';
                el.apiStatus.className = 'error';
            })
            .then(function () {
                state.refreshes++;
                inFlight = false;
            });
    }

    function use(apiText) {
        state.api = apiBase(apiText);
        el.api.value = state.api;
        showError(null);
        if (timer) clearInterval(timer);
        var seconds = Number(q.get('refresh')) > 0 ? Number(q.get('refresh')) : DEFAULT_REFRESH_S;
        timer = setInterval(refresh, seconds * 1000);
        return refresh();
    }

    el.apiForm.addEventListener('submit', function (e) {
        e.preventDefault();
        q.set('api', el.api.value.trim());
        history.replaceState(null, '', '?' + q.toString());
        use(el.api.value);
    });

    window.consoleState = function () { return state; };
    window.consoleRefresh = refresh;
    use(q.get('api'));
})();
