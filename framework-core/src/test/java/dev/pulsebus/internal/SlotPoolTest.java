package dev.pulsebus.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.util.BufferRecycler;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class SlotPoolTest {

    @Test
    void oneGivenBackIsTakenAgainAndAFullPoolLetsTheRestGo() {
        assertThat(new SlotPool<>(1, Object::new).capacity()).isEqualTo(1);
        assertThat(new SlotPool<>(8, Object::new).capacity()).isEqualTo(8);
        SlotPool<Object> pool = new SlotPool<>(6, Object::new);
        assertThat(pool.capacity()).isEqualTo(8);
        Object first = pool.take();
        pool.give(first);
        assertThat(pool.pooled()).isEqualTo(1);
        assertThat(pool.take()).isSameAs(first);
        assertThat(pool.pooled()).isZero();

        List<Object> many = new ArrayList<>();
        for (int i = 0; i < 13; i++) {
            many.add(pool.take());
        }
        assertThat(many).doesNotHaveDuplicates();
        many.forEach(pool::give);
        assertThat(pool.pooled()).isEqualTo(8);
        Set<Object> lent = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int i = 0; i < 8; i++) {
            lent.add(pool.take());
        }
        assertThat(many).containsAll(lent);
        assertThat(pool.take()).isNotIn(many); // empty again: a new one

        many.forEach(pool::give);
        pool.clear();
        assertThat(pool.pooled()).isZero();
    }

    @Test
    void jacksonsBuffersArePooledInSlots() {
        BufferPool buffers = new BufferPool(6);
        assertThat(buffers.capacity()).isEqualTo(8);
        BufferRecycler first = buffers.acquirePooled();
        buffers.releasePooled(first);
        assertThat(buffers.pooledCount()).isEqualTo(1);
        assertThat(buffers.acquirePooled()).isSameAs(first);
        buffers.releasePooled(first);
        assertThat(buffers.clear()).isTrue();
        assertThat(buffers.pooledCount()).isZero();
    }

    @Test
    @Timeout(60)
    void noneIsTakenByTwoAtOnce() throws Exception {
        SlotPool<Object> pool = new SlotPool<>(4, Object::new); // fewer slots than takers: empty and full happen
        Set<Object> held = ConcurrentHashMap.newKeySet();
        int threads = 6;
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService exec = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                results.add(exec.submit(() -> {
                    go.await();
                    int doubleLent = 0;
                    for (int i = 0; i < 200_000; i++) {
                        Object r = pool.take();
                        if (!held.add(r)) {
                            doubleLent++;
                        }
                        Thread.onSpinWait();
                        held.remove(r);
                        pool.give(r);
                    }
                    return doubleLent;
                }));
            }
            go.countDown();
            for (Future<Integer> f : results) {
                assertThat(f.get()).isZero();
            }
        } finally {
            exec.shutdownNow();
            assertThat(exec.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(pool.pooled()).isBetween(1, 4);
    }
}
