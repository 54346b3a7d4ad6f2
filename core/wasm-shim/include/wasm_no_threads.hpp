// Single-threaded stand-ins for std::mutex, std::shared_mutex, std::unique_lock, std::shared_lock and
// std::thread, force-included (-include, see ../bin/wasm-clang++) into every C++ file of edgemem-core's
// wasm32 build.
//
// Debian's wasm32-wasi libc++ is built with threads disabled, so <mutex>, <shared_mutex> and <thread>
// declare nothing and usearch does not compile. USearch only needs the types: on single-threaded wasm
// every lock is uncontended, so no-op locks are exact, and hardware_concurrency() = 1 keeps usearch's
// executor from ever starting a thread (constructing one traps). Wrong if wasm threads are ever enabled.
#pragma once
#ifdef __cplusplus
#include <__config>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <utility>

// libc++ 19 says "no threads" with _LIBCPP_HAS_NO_THREADS; libc++ 20+ with _LIBCPP_HAS_THREADS == 0.
#if defined(_LIBCPP_HAS_NO_THREADS) || (defined(_LIBCPP_HAS_THREADS) && !_LIBCPP_HAS_THREADS)
_LIBCPP_BEGIN_NAMESPACE_STD

class mutex {
  public:
    constexpr mutex() noexcept = default;
    mutex(mutex const&) = delete;
    mutex& operator=(mutex const&) = delete;
    void lock() noexcept {}
    bool try_lock() noexcept { return true; }
    void unlock() noexcept {}
};

class shared_mutex {
  public:
    constexpr shared_mutex() noexcept = default;
    shared_mutex(shared_mutex const&) = delete;
    shared_mutex& operator=(shared_mutex const&) = delete;
    void lock() noexcept {}
    bool try_lock() noexcept { return true; }
    void unlock() noexcept {}
    void lock_shared() noexcept {}
    bool try_lock_shared() noexcept { return true; }
    void unlock_shared() noexcept {}
};

template <class mutex_at> class unique_lock {
    mutex_at* m_ = nullptr;
    bool owns_ = false;

  public:
    using mutex_type = mutex_at;
    unique_lock() noexcept = default;
    explicit unique_lock(mutex_at& m) : m_(&m), owns_(true) { m.lock(); }
    unique_lock(mutex_at& m, defer_lock_t) noexcept : m_(&m), owns_(false) {}
    unique_lock(mutex_at& m, try_to_lock_t) : m_(&m), owns_(m.try_lock()) {}
    unique_lock(mutex_at& m, adopt_lock_t) : m_(&m), owns_(true) {}
    unique_lock(unique_lock const&) = delete;
    unique_lock& operator=(unique_lock const&) = delete;
    unique_lock(unique_lock&& o) noexcept : m_(o.m_), owns_(o.owns_) { o.m_ = nullptr, o.owns_ = false; }
    unique_lock& operator=(unique_lock&& o) noexcept {
        if (owns_) m_->unlock();
        m_ = o.m_, owns_ = o.owns_, o.m_ = nullptr, o.owns_ = false;
        return *this;
    }
    ~unique_lock() {
        if (owns_) m_->unlock();
    }
    void lock() { m_->lock(), owns_ = true; }
    bool try_lock() { return owns_ = m_->try_lock(); }
    void unlock() { m_->unlock(), owns_ = false; }
    void swap(unique_lock& o) noexcept { std::swap(m_, o.m_), std::swap(owns_, o.owns_); }
    mutex_at* release() noexcept {
        mutex_at* m = m_;
        m_ = nullptr, owns_ = false;
        return m;
    }
    bool owns_lock() const noexcept { return owns_; }
    explicit operator bool() const noexcept { return owns_; }
    mutex_at* mutex() const noexcept { return m_; }
};

template <class mutex_at> class shared_lock {
    mutex_at* m_ = nullptr;
    bool owns_ = false;

  public:
    using mutex_type = mutex_at;
    shared_lock() noexcept = default;
    explicit shared_lock(mutex_at& m) : m_(&m), owns_(true) { m.lock_shared(); }
    shared_lock(mutex_at& m, defer_lock_t) noexcept : m_(&m), owns_(false) {}
    shared_lock(mutex_at& m, adopt_lock_t) : m_(&m), owns_(true) {}
    shared_lock(shared_lock const&) = delete;
    shared_lock& operator=(shared_lock const&) = delete;
    shared_lock(shared_lock&& o) noexcept : m_(o.m_), owns_(o.owns_) { o.m_ = nullptr, o.owns_ = false; }
    ~shared_lock() {
        if (owns_) m_->unlock_shared();
    }
    void lock() { m_->lock_shared(), owns_ = true; }
    void unlock() { m_->unlock_shared(), owns_ = false; }
    bool owns_lock() const noexcept { return owns_; }
    explicit operator bool() const noexcept { return owns_; }
    mutex_at* mutex() const noexcept { return m_; }
};

// Only the type and hardware_concurrency() are used; starting a thread traps.
class thread {
  public:
    class id {
      public:
        id() noexcept = default;
        friend bool operator==(id, id) noexcept { return true; }
        friend bool operator!=(id, id) noexcept { return false; }
    };
    thread() noexcept = default;
    template <class fn_at, class... args_at> explicit thread(fn_at&&, args_at&&...) { __builtin_trap(); }
    thread(thread&&) noexcept = default;
    thread& operator=(thread&&) noexcept = default;
    thread(thread const&) = delete;
    bool joinable() const noexcept { return false; }
    void join() {}
    void detach() {}
    id get_id() const noexcept { return {}; }
    static unsigned hardware_concurrency() noexcept { return 1; }
};

namespace this_thread {
inline void yield() noexcept {}
inline thread::id get_id() noexcept { return {}; }
} // namespace this_thread

_LIBCPP_END_NAMESPACE_STD
#endif // no threads
#endif // __cplusplus
