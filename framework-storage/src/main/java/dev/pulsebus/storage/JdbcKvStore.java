package dev.pulsebus.storage;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.pulsebus.kv.Kv;
import dev.pulsebus.kv.KvException;
import dev.pulsebus.kv.KvStore;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/** The KV store on a JDBC database: namespaces, the shared writer, point reads and key listing. */
final class JdbcKvStore implements KvStore, AutoCloseable {

    private static final String LIVE = " AND (expires_at IS NULL OR expires_at > ?)";
    private static final String READ = "SELECT v, expires_at FROM pulsebus_kv WHERE ns = ? AND k = ?" + LIVE;
    private static final String KEYS = "SELECT k FROM pulsebus_kv WHERE ns = ? AND k >= ?" + LIVE + " ORDER BY k";

    final Clock clock;
    final int maxValueBytes;
    final KvWriter writer;
    final ExecutorService readExecutor = Executors.newVirtualThreadPerTaskExecutor();
    private final DataSource dataSource;
    private final SessionPool sessions;
    private final StorageHealth health;
    private final long cacheSize;
    private final @Nullable Duration cacheTtl;
    private final ConcurrentHashMap<String, NamespaceKv> namespaces = new ConcurrentHashMap<>();
    private final LongAdder dbReads = new LongAdder();
    private volatile boolean closed;

    JdbcKvStore(DataSource dataSource, SessionPool sessions, Dialect dialect, StorageHealth health, Storage.Builder b) {
        this.dataSource = dataSource;
        this.sessions = sessions;
        this.health = health;
        this.clock = b.clock;
        this.maxValueBytes = b.maxValueBytes;
        this.cacheSize = b.cacheSize;
        this.cacheTtl = b.cacheTtl != null ? b.cacheTtl : (dialect == Dialect.SQLITE ? null : Duration.ofSeconds(1));
        this.writer = new KvWriter(dataSource, dialect, clock, b.writeQueueCapacity, b.maxWriteBatch,
                b.writeOverflowWait.toNanos(), b.expirySweepInterval.toMillis(), health);
        if (b.meterRegistry != null) {
            bindMetrics(b.meterRegistry);
        }
    }

    @Override
    public Kv namespace(String name) {
        KvCodec.checkNamespace(name);
        if (closed) {
            throw new KvException("KV store is closed");
        }
        return namespaces.computeIfAbsent(name, n -> new NamespaceKv(n, this, newCache()));
    }

    @Override
    public boolean healthy() {
        return health.up();
    }

    private @Nullable Cache<String, CachedValue> newCache() {
        if (cacheSize <= 0) {
            return null;
        }
        Caffeine<Object, Object> c = Caffeine.newBuilder().maximumSize(cacheSize).recordStats();
        if (cacheTtl != null) {
            c.expireAfterWrite(cacheTtl);
        }
        return c.build();
    }

    long expiresAt(@Nullable Duration ttl) {
        if (ttl == null) {
            return Long.MAX_VALUE;
        }
        if (ttl.isNegative() || ttl.isZero()) {
            throw new KvException("time to live must be positive, was " + ttl);
        }
        return clock.millis() + ttl.toMillis();
    }

    /**
     * One point read from the database (a cache miss, or every read with the cache off). A read that fails
     * on a kept session is tried once more on a fresh connection: the kept one may have died with a
     * database restart while it idled.
     */
    CachedValue read(String ns, String key) {
        ensureOpen();
        dbReads.increment();
        try {
            return readOnce(ns, key);
        } catch (KvException first) {
            try {
                return readOnce(ns, key);
            } catch (KvException again) {
                again.addSuppressed(first);
                throw again;
            }
        }
    }

    private CachedValue readOnce(String ns, String key) {
        Session s = null;
        try {
            s = sessions.borrow();
            PreparedStatement ps = s.prepare(READ);
            ps.setString(1, ns);
            ps.setString(2, key);
            ps.setLong(3, clock.millis());
            CachedValue v;
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    v = CachedValue.ABSENT;
                } else {
                    byte[] bytes = rs.getBytes(1);
                    long expiresAt = rs.getLong(2);
                    v = new CachedValue(bytes, null, rs.wasNull() ? Long.MAX_VALUE : expiresAt);
                }
            }
            sessions.release(s, false);
            return v;
        } catch (SQLException e) {
            if (s != null) {
                sessions.release(s, true);
            }
            health.failed(e);
            throw new KvException("KV read of '" + key + "' in " + ns + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * Keys with {@code prefix}: they are contiguous in the primary key's byte order, so one range scan
     * from {@code prefix} ends at the first key without it.
     */
    List<String> keys(String ns, String prefix, int limit) {
        ensureOpen();
        List<String> keys = new ArrayList<>();
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(KEYS + " LIMIT ?")) {
            ps.setString(1, ns);
            ps.setString(2, prefix);
            ps.setLong(3, clock.millis());
            ps.setInt(4, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String k = rs.getString(1);
                    if (!k.startsWith(prefix)) {
                        break;
                    }
                    keys.add(k);
                }
            }
        } catch (SQLException e) {
            health.failed(e);
            throw new KvException("KV key listing of '" + prefix + "' in " + ns + " failed: " + e.getMessage(), e);
        }
        return keys;
    }

    private void ensureOpen() {
        if (closed) {
            throw new KvException("KV store is closed");
        }
    }

    private void bindMetrics(MeterRegistry registry) {
        writer.commitTimer(io.micrometer.core.instrument.Timer.builder("pulsebus.kv.commit")
                .description("KV group-commit transactions, from the first statement to the commit")
                .register(registry));
        FunctionCounter.builder("pulsebus.kv.writes", writer.writes, LongAdder::sum)
                .description("KV writes committed").register(registry);
        FunctionCounter.builder("pulsebus.kv.write.batches", writer.batches, LongAdder::sum)
                .description("KV group-commit transactions").register(registry);
        FunctionCounter.builder("pulsebus.kv.writes.failed", writer.failed, LongAdder::sum)
                .description("KV writes failed by the database (not acknowledged)").register(registry);
        FunctionCounter.builder("pulsebus.kv.writes.rejected", writer.rejected, LongAdder::sum)
                .description("KV writes refused because the write queue stayed full").register(registry);
        FunctionCounter.builder("pulsebus.kv.expired", writer.expired, LongAdder::sum)
                .description("Expired KV rows deleted").register(registry);
        Gauge.builder("pulsebus.kv.write.queue", writer, KvWriter::pending)
                .description("KV writes waiting for their transaction").register(registry);
        FunctionCounter.builder("pulsebus.kv.reads.database", dbReads, LongAdder::sum)
                .description("KV reads that went to the database (cache misses, or cache off)").register(registry);
        FunctionCounter.builder("pulsebus.kv.reads.cached", this, JdbcKvStore::cacheHitCount)
                .description("KV reads answered by the in-process cache").register(registry);
    }

    private double cacheHitCount() {
        long hits = 0;
        for (NamespaceKv kv : namespaces.values()) {
            hits += kv.cacheHits();
        }
        return hits;
    }

    /** {@link #close(long)} with 10 s. */
    @Override
    public void close() {
        close(TimeUnit.SECONDS.toNanos(10));
    }

    /**
     * Commits every queued write, waiting at most {@code timeoutNanos} (writes still queued then fail), then
     * refuses new calls; reads still running are interrupted at the timeout.
     */
    void close(long timeoutNanos) {
        if (closed) {
            return;
        }
        long deadline = System.nanoTime() + timeoutNanos;
        writer.close(timeoutNanos);
        closed = true;
        readExecutor.shutdown();
        try {
            if (!readExecutor.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                readExecutor.shutdownNow();
            }
        } catch (InterruptedException e) {
            readExecutor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
