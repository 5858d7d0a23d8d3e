#include "app/live/hls_memory_store.hpp"

#include <algorithm>
#include <string_view>
#include <vector>

#include "core/clock.hpp"
#include "io/coroutine.hpp"

namespace srs {

namespace {

// Appends the steps of `path` to the folded path in *out ("/a/b", or "" for
// the root): "." and empty steps are skipped, ".." drops the last step.
void fold_steps(std::string_view path, std::string* out) {
    size_t at = 0;
    while (at <= path.size()) {
        size_t slash = path.find('/', at);
        if (slash == std::string_view::npos) slash = path.size();
        std::string_view step = path.substr(at, slash - at);
        if (step == "..") {
            size_t last = out->rfind('/');
            out->resize(last == std::string::npos ? 0 : last);
        } else if (!step.empty() && step != ".") {
            *out += '/';
            out->append(step.data(), step.size());
        }
        at = slash + 1;
    }
}

}  // namespace

// Every memory-store look-up folds its path: built in one string, no
// vector of steps (a parked LL-HLS player asks five times a second).
std::string hls_fold_path(const std::string& absolute) {
    std::string out;
    out.reserve(absolute.size() + 1);
    fold_steps(absolute, &out);
    if (out.empty()) out = "/";
    return out;
}

HlsPlaylistSlot::HlsPlaylistSlot() = default;
HlsPlaylistSlot::~HlsPlaylistSlot() = default;

// A thousand parked LL-HLS players each waiting with a timeout would put a
// thousand entries in the runtime's timer heap, and take them out again at
// every part. One waiter, the keeper, waits with its timeout; when that ends
// with no change it wakes everyone, so each looks at its own deadline and
// player as after its own timeout. A waiter whose timeout ends no earlier
// than the keeper's waits without one (the keeper wakes it in time); one
// whose timeout ends sooner waits with its own.
bool HlsPlaylistSlot::wait_change(int64_t timeout_us) {
    if (!cond_) cond_.reset(new CoCond());
    const uint64_t seen = version_;
    const int64_t due = monotonic_us() + std::max<int64_t>(timeout_us, 0);
    const bool keeper = !has_keeper_;
    if (keeper) {
        has_keeper_ = true;
        keeper_due_us_ = due;
    }
    const bool timed = keeper || due < keeper_due_us_;
    waiters_++;
    bool woken = cond_->wait(timed ? timeout_us : -1);
    waiters_--;
    if (keeper) {
        has_keeper_ = false;
        // Timed out or interrupted: the others' clock stops with ours, so
        // wake them (one of them keeps time next).
        if (version_ == seen && waiters_ > 0) cond_->broadcast();
    }
    return woken && (version_ != seen || removed_);
}

void HlsPlaylistSlot::changed() {
    version_++;
    if (cond_ && waiters_ > 0) cond_->broadcast();
}

HlsMemoryStore::HlsMemoryStore(std::string cwd) : cwd_(std::move(cwd)) {}

HlsMemoryStore::~HlsMemoryStore() {
    for (auto& kv : playlists_) {
        kv.second->removed_ = true;
        kv.second->changed();
    }
}

std::string HlsMemoryStore::key_of(const std::string& path) const {
    if (!path.empty() && path[0] == '/') return hls_fold_path(path);
    // Relative: as if cwd_ + "/" + path were folded, without making that string.
    std::string out;
    out.reserve(cwd_.size() + 1 + path.size());
    fold_steps(cwd_, &out);
    fold_steps(path, &out);
    if (out.empty()) out = "/";
    return out;
}

void HlsMemoryStore::put(const std::string& path, std::string bytes) {
    std::string key = key_of(path);
    HlsBlob& slot = files_[key];
    if (slot) bytes_ -= slot->size();
    bytes_ += bytes.size();
    slot = std::make_shared<const std::string>(std::move(bytes));
}

HlsBlob HlsMemoryStore::get(const std::string& path) const {
    std::string key = key_of(path);
    auto it = files_.find(key);
    if (it != files_.end()) return it->second;
    auto p = playlists_.find(key);
    if (p != playlists_.end()) return p->second->current_.full;
    return nullptr;
}

void HlsMemoryStore::remove(const std::string& path) {
    std::string key = key_of(path);
    auto it = files_.find(key);
    if (it != files_.end()) {
        bytes_ -= it->second->size();
        files_.erase(it);
    }
    auto p = playlists_.find(key);
    if (p == playlists_.end()) return;
    std::shared_ptr<HlsPlaylistSlot> slot = p->second;
    playlists_.erase(p);
    if (!slot->current_.hint_key.empty()) hints_.erase(slot->current_.hint_key);
    for (const HlsBlob& b : {slot->current_.full, slot->current_.delta}) {
        if (b) bytes_ -= b->size();
    }
    slot->removed_ = true;
    slot->changed();
}

void HlsMemoryStore::put_playlist(const std::string& path, HlsMemoryPlaylist playlist) {
    std::string key = key_of(path);
    std::shared_ptr<HlsPlaylistSlot>& slot = playlists_[key];
    if (!slot) slot = std::make_shared<HlsPlaylistSlot>();
    HlsMemoryPlaylist& cur = slot->current_;
    for (const HlsBlob& b : {cur.full, cur.delta}) {
        if (b) bytes_ -= b->size();
    }
    if (!cur.hint_key.empty()) hints_.erase(cur.hint_key);
    cur = std::move(playlist);
    if (!cur.hint_key.empty()) cur.hint_key = key_of(cur.hint_key);
    for (const HlsBlob& b : {cur.full, cur.delta}) {
        if (b) bytes_ += b->size();
    }
    if (!cur.hint_key.empty()) hints_[cur.hint_key] = slot;
    slot->changed();
}

std::shared_ptr<HlsPlaylistSlot> HlsMemoryStore::playlist(const std::string& path) const {
    auto p = playlists_.find(key_of(path));
    return p == playlists_.end() ? nullptr : p->second;
}

std::shared_ptr<HlsPlaylistSlot> HlsMemoryStore::hinted_by(const std::string& path) const {
    auto p = hints_.find(key_of(path));
    return p == hints_.end() ? nullptr : p->second;
}

}  // namespace srs
