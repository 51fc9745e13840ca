package dev.pulsebus.cluster;

import dev.pulsebus.command.SharedControls;
import dev.pulsebus.internal.FailureLog;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the instances of a cluster share in Redis: cooldowns, rate limits and quotas ({@link SharedControls}, each
 * decision one Lua script, so atomic with no read-modify-write race between instances) and the set of finished
 * event ids ({@code SET NX PX}, with a time to live).
 *
 * <p>When Redis stops answering (a command fails or times out after {@link #TIMEOUT}), this marks it down, warns
 * (at most every 10 s) and answers {@link SharedControls#UNAVAILABLE} at once until a probe, every
 * {@link #PROBE_MILLIS}, finds it back; the router decides on its local tables meanwhile, so a cooldown granted
 * locally during the outage is not known to the other instances. Thread-safe; Lettuce multiplexes the calls of
 * every thread over one connection.
 */
final class RedisState implements SharedControls, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RedisState.class);
    static final Duration TIMEOUT = Duration.ofMillis(500);
    static final long PROBE_MILLIS = 250;
    static final int PING_EVERY = 4;

    /** KEYS[1] hash {l: last grant, p: the grant before, t: the block whose refusal was told}; ARGV now, window. */
    private static final String COOLDOWN = """
            local now = tonumber(ARGV[1]); local win = tonumber(ARGV[2])
            local last = redis.call('HGET', KEYS[1], 'l')
            local ttl = string.format('%d', win * 2)
            if not last then
              redis.call('HSET', KEYS[1], 'l', ARGV[1], 'p', '')
              redis.call('PEXPIRE', KEYS[1], ttl)
              return -1
            end
            local untl = tonumber(last) + win
            if now >= untl then
              redis.call('HSET', KEYS[1], 'p', last, 'l', ARGV[1])
              redis.call('PEXPIRE', KEYS[1], ttl)
              return -1
            end
            local told = redis.call('HGET', KEYS[1], 't')
            if told and tonumber(told) == untl then return -2 end
            redis.call('HSET', KEYS[1], 't', string.format('%d', untl))
            return untl - now
            """;
    private static final String COOLDOWN_RELEASE = """
            local p = redis.call('HGET', KEYS[1], 'p')
            if p and p ~= '' then redis.call('HSET', KEYS[1], 'l', p) else redis.call('DEL', KEYS[1]) end
            return 1
            """;
    /** KEYS[1] sorted set of grant times, KEYS[2] the told block; ARGV now, window, limit, a unique member. */
    private static final String RATE_LIMIT = """
            local now = tonumber(ARGV[1]); local win = tonumber(ARGV[2]); local lim = tonumber(ARGV[3])
            redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%d', now - win))
            if redis.call('ZCARD', KEYS[1]) < lim then
              redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
              redis.call('PEXPIRE', KEYS[1], ARGV[2])
              return -1
            end
            local untl = tonumber(redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2]) + win
            local told = redis.call('GET', KEYS[2])
            if told and tonumber(told) == untl then return -2 end
            redis.call('SET', KEYS[2], string.format('%d', untl), 'PX', ARGV[2])
            return untl - now
            """;
    /** KEYS[1] the count of the period, KEYS[2] the told block; ARGV limit, period end, now. */
    private static final String QUOTA = """
            local lim = tonumber(ARGV[1]); local untl = tonumber(ARGV[2]); local now = tonumber(ARGV[3])
            local used = tonumber(redis.call('GET', KEYS[1]) or '0')
            if used < lim then
              redis.call('INCR', KEYS[1])
              redis.call('PEXPIRE', KEYS[1], string.format('%d', untl - now + 86400000))
              return -1
            end
            local told = redis.call('GET', KEYS[2])
            if told and tonumber(told) == untl then return -2 end
            redis.call('SET', KEYS[2], ARGV[2], 'PX', string.format('%d', untl - now + 86400000))
            return untl - now
            """;
    private static final String QUOTA_RELEASE = """
            if tonumber(redis.call('GET', KEYS[1]) or '0') > 0 then redis.call('DECR', KEYS[1]) end
            return 1
            """;

    private final String prefix;
    private final String where;
    private final String member;
    private final AtomicLong members = new AtomicLong();
    private final ClientResources resources;
    private final RedisClient client;
    private volatile @Nullable StatefulRedisConnection<String, String> connection;
    private volatile boolean up;
    private volatile boolean closed;
    private final Thread probe;
    private final FailureLog warnings = FailureLog.warning(LOG, Duration.ofSeconds(10));
    final LongAdder outages = new LongAdder();
    final LongAdder dedupeHits = new LongAdder();
    /** Copies of an event handed over by several instances, found handled already (counted by the broker). */
    final LongAdder copiesDropped = new LongAdder();

    /**
     * Connects to {@code uri}; keys start with {@code prefix}. Redis may be down: this then starts degraded and
     * finds it when it comes.
     */
    RedisState(URI uri, String prefix, String instance) {
        this.prefix = prefix;
        this.where = uri.getHost() + ":" + uri.getPort();
        this.member = instance + ":";
        // Reconnect every PROBE_MILLIS, not Lettuce's backoff to 30 s: shared again soon after Redis is back.
        this.resources = DefaultClientResources.builder().ioThreadPoolSize(1).computationThreadPoolSize(1)
                .reconnectDelay(Delay.constant(Duration.ofMillis(PROBE_MILLIS))).build();
        RedisURI redisUri = RedisURI.create(uri);
        redisUri.setTimeout(TIMEOUT);
        this.client = RedisClient.create(resources, redisUri);
        client.setOptions(ClientOptions.builder().autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .socketOptions(SocketOptions.builder().connectTimeout(TIMEOUT).build())
                .timeoutOptions(TimeoutOptions.enabled(TIMEOUT)).build());
        tryConnect();
        this.probe = Thread.ofPlatform().daemon().name("pulsebus-redis-probe").start(this::probeLoop);
    }

    /** Whether Redis answers: false while the controls stand in on local tables. */
    boolean up() {
        return up;
    }

    private void tryConnect() {
        if (closed) {
            return; // not an outage: closing
        }
        try {
            StatefulRedisConnection<String, String> c = connection;
            if (c == null) {
                c = client.connect();
                connection = c;
            }
            if ("PONG".equals(c.sync().ping())) {
                if (!up && outages.sum() > 0) {
                    LOG.info("Redis at {} answers again: cooldowns, rate limits and quotas are shared again", where);
                }
                up = true;
            }
        } catch (RedisException e) {
            down(e);
        }
    }

    /**
     * While down, tries Redis every {@link #PROBE_MILLIS}; while up, pings it every {@link #PING_EVERY} probes, so
     * that an instance that has not needed Redis lately (it holds no busy partition) still shows an outage in
     * {@code /health}.
     */
    private void probeLoop() {
        for (long tick = 1; !closed; tick++) {
            try {
                Thread.sleep(PROBE_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
            if (!closed && (!up || tick % PING_EVERY == 0)) {
                tryConnect();
            }
        }
    }

    private void down(RuntimeException e) {
        if (up || outages.sum() == 0) {
            outages.increment();
        }
        up = false;
        warnings.warn("Redis does not answer ({}): cooldowns, rate limits and quotas are decided on this instance's "
                + "own tables until it is back", e.toString());
    }

    private @Nullable RedisCommands<String, String> commands() {
        StatefulRedisConnection<String, String> c = connection;
        return up && c != null ? c.sync() : null;
    }

    private long eval(String script, String[] keys, String... args) {
        RedisCommands<String, String> r = commands();
        if (r == null) {
            return UNAVAILABLE;
        }
        try {
            Long answer = r.eval(script, ScriptOutputType.INTEGER, keys, args);
            return answer == null ? UNAVAILABLE : answer;
        } catch (RedisException e) {
            down(e);
            return UNAVAILABLE;
        }
    }

    private String key(String kind, String key) {
        return prefix + kind + ":{" + key + "}";
    }

    @Override
    public long cooldown(String key, long windowMillis, long now) {
        return eval(COOLDOWN, new String[] {key("cd", key)}, Long.toString(now), Long.toString(windowMillis));
    }

    @Override
    public long rateLimit(String key, int limit, long windowMillis, long now) {
        String k = key("rl", key);
        return eval(RATE_LIMIT, new String[] {k, k + ":told"}, Long.toString(now), Long.toString(windowMillis),
                Integer.toString(limit), member + members.incrementAndGet());
    }

    @Override
    public long quota(String key, String periodKey, int limit, long periodEndMillis, long now) {
        String k = key("q", key + "\u0000" + periodKey);
        return eval(QUOTA, new String[] {k, k + ":told"}, Integer.toString(limit), Long.toString(periodEndMillis),
                Long.toString(now));
    }

    @Override
    public boolean release(String control, String key, String periodKey) {
        return switch (control) {
            case "cooldown" -> eval(COOLDOWN_RELEASE, new String[] {key("cd", key)}) != UNAVAILABLE;
            case "rate_limit" -> {
                RedisCommands<String, String> r = commands();
                if (r == null) {
                    yield false;
                }
                try {
                    r.zpopmax(key("rl", key));
                    yield true;
                } catch (RedisException e) {
                    down(e);
                    yield false;
                }
            }
            case "quota" -> eval(QUOTA_RELEASE, new String[] {key("q", key + "\u0000" + periodKey)}) != UNAVAILABLE;
            default -> throw new IllegalArgumentException("no control " + control);
        };
    }

    /**
     * Records that event {@code id} was handled, for {@code ttlMillis} ({@code SET NX PX}).
     *
     * @return false when Redis cannot answer (a redelivery of it will then run again)
     */
    boolean markDone(String id, long ttlMillis) {
        RedisCommands<String, String> r = commands();
        if (r == null) {
            return false;
        }
        try {
            r.set(prefix + "done:" + id, "1", SetArgs.Builder.nx().px(ttlMillis));
            return true;
        } catch (RedisException e) {
            down(e);
            return false;
        }
    }

    /** {@link Cluster#claim}: {@code SET NX PX}; true when set, or when Redis cannot answer. */
    boolean claim(String id, long ttlMillis) {
        RedisCommands<String, String> r = commands();
        if (r == null) {
            return true;
        }
        try {
            return r.set(prefix + "claim:" + id, member, SetArgs.Builder.nx().px(ttlMillis)) != null;
        } catch (RedisException e) {
            down(e);
            return true;
        }
    }

    /** Whether event {@code id} was handled (false also when Redis cannot answer: it then runs again). */
    boolean isDone(String id) {
        RedisCommands<String, String> r = commands();
        if (r == null) {
            return false;
        }
        try {
            return r.exists(prefix + "done:" + id) > 0;
        } catch (RedisException e) {
            down(e);
            return false;
        }
    }

    @Override
    public void close() {
        closed = true;
        probe.interrupt();
        StatefulRedisConnection<String, String> c = connection;
        if (c != null) {
            c.close();
        }
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        resources.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
