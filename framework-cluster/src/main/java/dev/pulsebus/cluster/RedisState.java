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
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the instances of a cluster share in Redis: cooldowns, rate limits and quotas ({@link SharedControls}, each
 * decision one Lua script, so atomic with no read-modify-write race between instances), the set of finished
 * event ids ({@code SET NX PX}, with a time to live), and leases ({@link #lease}: one holder at a time).
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

    private static final String COOLDOWN_RELEASE = """
            local p = redis.call('HGET', KEYS[1], 'p')
            if p and p ~= '' then redis.call('HSET', KEYS[1], 'l', p) else redis.call('DEL', KEYS[1]) end
            return 1
            """;
    private static final String QUOTA_RELEASE = """
            if tonumber(redis.call('GET', KEYS[1]) or '0') > 0 then redis.call('DECR', KEYS[1]) end
            return 1
            """;

    /**
     * The controls of one call ({@link #acquireAll}) in one script, each as its own script decides it: KEYS two per
     * ask (its key, its told block); ARGV now, then four per ask: {@code c} window, or {@code r} window, limit,
     * member, or {@code q} limit, period end. At the first refusal the grants before it are taken back; returns
     * {refused ask's index from 0, its answer}, or {-1, -1} when all were granted.
     */
    private static final String ALL = """
            local now = tonumber(ARGV[1])
            local function cooldown(k, win)
              local last = redis.call('HGET', k, 'l')
              local ttl = string.format('%d', win * 2)
              if not last then
                redis.call('HSET', k, 'l', ARGV[1], 'p', '')
                redis.call('PEXPIRE', k, ttl)
                return -1
              end
              local untl = tonumber(last) + win
              if now >= untl then
                redis.call('HSET', k, 'p', last, 'l', ARGV[1])
                redis.call('PEXPIRE', k, ttl)
                return -1
              end
              local told = redis.call('HGET', k, 't')
              if told and tonumber(told) == untl then return -2 end
              redis.call('HSET', k, 't', string.format('%d', untl))
              return untl - now
            end
            local function rate(k, toldKey, winArg, lim, member)
              local win = tonumber(winArg)
              redis.call('ZREMRANGEBYSCORE', k, '-inf', string.format('%d', now - win))
              if redis.call('ZCARD', k) < lim then
                redis.call('ZADD', k, ARGV[1], member)
                redis.call('PEXPIRE', k, winArg)
                return -1
              end
              local untl = tonumber(redis.call('ZRANGE', k, 0, 0, 'WITHSCORES')[2]) + win
              local told = redis.call('GET', toldKey)
              if told and tonumber(told) == untl then return -2 end
              redis.call('SET', toldKey, string.format('%d', untl), 'PX', winArg)
              return untl - now
            end
            local function quota(k, toldKey, lim, untlArg)
              local untl = tonumber(untlArg)
              local keep = string.format('%d', untl - now + 86400000)
              local used = tonumber(redis.call('GET', k) or '0')
              if used < lim then
                redis.call('INCR', k)
                redis.call('PEXPIRE', k, keep)
                return -1
              end
              local told = redis.call('GET', toldKey)
              if told and tonumber(told) == untl then return -2 end
              redis.call('SET', toldKey, untlArg, 'PX', keep)
              return untl - now
            end
            local function undo(i)
              local t = ARGV[2 + i * 4]; local k = KEYS[1 + i * 2]
              if t == 'c' then
                local p = redis.call('HGET', k, 'p')
                if p and p ~= '' then redis.call('HSET', k, 'l', p) else redis.call('DEL', k) end
              elseif t == 'r' then
                redis.call('ZREM', k, ARGV[5 + i * 4])
              elseif tonumber(redis.call('GET', k) or '0') > 0 then
                redis.call('DECR', k)
              end
            end
            local n = (#ARGV - 1) / 4
            for i = 0, n - 1 do
              local t = ARGV[2 + i * 4]; local a = ARGV[3 + i * 4]; local b = ARGV[4 + i * 4]
              local k = KEYS[1 + i * 2]; local toldKey = KEYS[2 + i * 2]
              local r
              if t == 'c' then r = cooldown(k, tonumber(a))
              elseif t == 'r' then r = rate(k, toldKey, a, tonumber(b), ARGV[5 + i * 4])
              else r = quota(k, toldKey, tonumber(a), b) end
              if r ~= -1 then
                for j = i - 1, 0, -1 do undo(j) end
                return {i, r}
              end
            end
            return {-1, -1}
            """;

    private final String prefix;
    private final String where;
    private final String member;
    /** What this run's leases hold: the instance's name, {@code #}, a token drawn at start. */
    private final String holder;
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
        this.holder = instance + "#" + Long.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextLong());
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
        return up && !closed && c != null ? c.sync() : null; // closed: a handler still running at shutdown asks
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
        return one(new Ask("cooldown", key, 0, windowMillis, "", 0), now);
    }

    @Override
    public long rateLimit(String key, int limit, long windowMillis, long now) {
        return one(new Ask("rate_limit", key, limit, windowMillis, "", 0), now);
    }

    @Override
    public long quota(String key, String periodKey, int limit, long periodEndMillis, long now) {
        return one(new Ask("quota", key, limit, 0, periodKey, periodEndMillis), now);
    }

    /** One control alone: {@link #ALL} with one ask ({@link Decision#answer} is the answer in each case). */
    private long one(Ask ask, long now) {
        return acquireAll(new Ask[] {ask}, now).answer();
    }

    /** Every control of one call in one script: one round trip (see {@link #ALL}). */
    @Override
    public Decision acquireAll(Ask[] asks, long now) {
        RedisCommands<String, String> r = commands();
        if (r == null) {
            return Decision.NOT_ANSWERED;
        }
        String[] keys = new String[asks.length * 2];
        String[] args = new String[1 + asks.length * 4];
        args[0] = Long.toString(now);
        for (int i = 0; i < asks.length; i++) {
            Ask a = asks[i];
            String k;
            switch (a.control()) {
                case "cooldown" -> {
                    k = key("cd", a.key());
                    fill(args, i, "c", Long.toString(a.windowMillis()), "", "");
                }
                case "rate_limit" -> {
                    k = key("rl", a.key());
                    fill(args, i, "r", Long.toString(a.windowMillis()), Integer.toString(a.limit()),
                            member + members.incrementAndGet());
                }
                case "quota" -> {
                    k = key("q", a.key() + "\u0000" + a.periodKey());
                    fill(args, i, "q", Integer.toString(a.limit()), Long.toString(a.periodEndMillis()), "");
                }
                default -> throw new IllegalArgumentException("no control " + a.control());
            }
            keys[i * 2] = k;
            keys[i * 2 + 1] = k + ":told";
        }
        try {
            List<Object> answer = r.eval(ALL, ScriptOutputType.MULTI, keys, args);
            int refused = ((Long) answer.get(0)).intValue();
            return refused < 0 ? Decision.ALL_GRANTED : new Decision(refused, (Long) answer.get(1));
        } catch (RedisException e) {
            down(e);
            return Decision.NOT_ANSWERED;
        }
    }

    private static void fill(String[] args, int ask, String type, String a, String b, String c) {
        args[1 + ask * 4] = type;
        args[2 + ask * 4] = a;
        args[3 + ask * 4] = b;
        args[4 + ask * 4] = c;
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

    /**
     * {@link #markDone}, not waited for: sent now, on the connection every later check uses (so Redis runs it before
     * them), completing once Redis answered or could not (never exceptionally).
     */
    java.util.concurrent.CompletionStage<Void> markDoneAsync(String id, long ttlMillis) {
        StatefulRedisConnection<String, String> c = connection;
        if (!up || closed || c == null) {
            return java.util.concurrent.CompletableFuture.completedFuture(null);
        }
        try {
            return c.async().set(prefix + "done:" + id, "1", SetArgs.Builder.nx().px(ttlMillis))
                    .handle((ok, failed) -> {
                        if (failed != null) {
                            down(failed instanceof RedisException x ? x : new RedisException(failed));
                        }
                        return null;
                    });
        } catch (RedisException e) {
            down(e);
            return java.util.concurrent.CompletableFuture.completedFuture(null);
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

    /**
     * A cron job's time: KEYS the time's claim and the job's running mark; ARGV holder, the time claim's and the
     * mark's expiry. 0: run (both set), 1: another instance claimed the time, 2: a run of the job still goes (the
     * time's claim taken back, so that each instance finds the job busy).
     */
    private static final String SCHEDULE = """
            if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
            if not redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[3]) then
              redis.call('DEL', KEYS[1])
              return 2
            end
            return 0
            """;
    /** Removes KEYS[1] when it still holds ARGV[1] (a run's mark, not a later run's; a lease still ours). */
    private static final String DELETE_IF_HELD = """
            if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
            return 1
            """;

    /**
     * {@link Cluster#scheduleClaims}: 0 run, 1 claimed elsewhere, 2 busy; 0 also when Redis cannot answer. The
     * running mark holds {@code holder} for {@code holdMillis} at most.
     */
    long scheduleClaim(String job, long timeMillis, String holder, long claimMillis, long holdMillis) {
        long r = eval(SCHEDULE, new String[] {prefix + "schedule:" + job + "@" + timeMillis,
            prefix + "schedule-running:" + job}, holder, Long.toString(claimMillis), Long.toString(holdMillis));
        return r == UNAVAILABLE ? 0 : r;
    }

    /** The run {@code holder} claimed of {@code job} has ended: its running mark goes (if still its own). */
    void scheduleEnded(String job, String holder) {
        eval(DELETE_IF_HELD, new String[] {prefix + "schedule-running:" + job}, holder);
    }

    /**
     * A lease: KEYS the lease; ARGV this run's holder value, the ttl. Renewed (its ttl set again) while it holds
     * ARGV[1], taken when nobody holds it: 1 held, 0 another holds it.
     */
    private static final String LEASE = """
            local v = redis.call('GET', KEYS[1])
            if v == ARGV[1] then
              redis.call('PEXPIRE', KEYS[1], ARGV[2])
              return 1
            end
            if v then return 0 end
            redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
            return 1
            """;

    /**
     * {@link Cluster#lease}: 1 this run holds {@code name} for {@code ttlMillis} more (taken or renewed), 0
     * another holds it, {@link SharedControls#UNAVAILABLE} when Redis cannot answer. The lease holds
     * {@link #holder}: the instance's name and this run's token, so a restarted instance of the same name waits
     * for its old run's lease to expire like any other.
     */
    long lease(String name, long ttlMillis) {
        return eval(LEASE, new String[] {prefix + "lease:" + name}, holder, Long.toString(ttlMillis));
    }

    /** Gives the lease {@code name} up when this run holds it (false when Redis cannot answer). */
    boolean release(String name) {
        return eval(DELETE_IF_HELD, new String[] {prefix + "lease:" + name}, holder) != UNAVAILABLE;
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

    /**
     * The platform's id of reply {@code nth} of event {@code id} as {@link #recordSent} recorded it; null when none
     * was recorded, or Redis cannot answer.
     */
    @Nullable String sent(String id, int nth) {
        RedisCommands<String, String> r = commands();
        if (r == null) {
            return null;
        }
        try {
            return r.get(prefix + "sent:" + id + "#" + nth);
        } catch (RedisException e) {
            down(e);
            return null;
        }
    }

    /**
     * Records reply {@code nth} of event {@code id} sent as {@code sentId} for {@code ttlMillis} ({@code SET PX},
     * not waited for here); completes with false when Redis could not take it.
     */
    java.util.concurrent.CompletionStage<Boolean> recordSent(String id, int nth, String sentId, long ttlMillis) {
        StatefulRedisConnection<String, String> c = connection;
        if (!up || closed || c == null) {
            return java.util.concurrent.CompletableFuture.completedFuture(false);
        }
        try {
            return c.async().set(prefix + "sent:" + id + "#" + nth, sentId, SetArgs.Builder.px(ttlMillis))
                    .handle((ok, failed) -> {
                        if (failed != null) {
                            down(failed instanceof RedisException x ? x : new RedisException(failed));
                        }
                        return failed == null;
                    });
        } catch (RedisException e) {
            down(e);
            return java.util.concurrent.CompletableFuture.completedFuture(false);
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
