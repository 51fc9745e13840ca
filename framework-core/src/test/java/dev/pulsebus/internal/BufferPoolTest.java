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

class BufferPoolTest {

    @Test
    void aSetGivenBackIsLentAgainAndAFullPoolLetsTheRestGo() {
        assertThat(new BufferPool(1).capacity()).isEqualTo(1);
        assertThat(new BufferPool(8).capacity()).isEqualTo(8);
        BufferPool pool = new BufferPool(6);
        assertThat(pool.capacity()).isEqualTo(8);
        BufferRecycler first = pool.acquirePooled();
        pool.releasePooled(first);
        assertThat(pool.pooledCount()).isEqualTo(1);
        assertThat(pool.acquirePooled()).isSameAs(first);
        assertThat(pool.pooledCount()).isZero();

        List<BufferRecycler> many = new ArrayList<>();
        for (int i = 0; i < 13; i++) {
            many.add(pool.acquirePooled());
        }
        assertThat(many).doesNotHaveDuplicates();
        many.forEach(pool::releasePooled);
        assertThat(pool.pooledCount()).isEqualTo(8);
        Set<BufferRecycler> lent = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int i = 0; i < 8; i++) {
            lent.add(pool.acquirePooled());
        }
        assertThat(many).containsAll(lent);
        assertThat(pool.acquirePooled()).isNotIn(many); // empty again: a new set

        many.forEach(pool::releasePooled);
        assertThat(pool.clear()).isTrue();
        assertThat(pool.pooledCount()).isZero();
    }

    @Test
    @Timeout(60)
    void noSetIsLentToTwoBorrowersAtOnce() throws Exception {
        BufferPool pool = new BufferPool(4); // fewer slots than borrowers: empty and full pools both happen
        Set<BufferRecycler> held = ConcurrentHashMap.newKeySet();
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
                        BufferRecycler r = pool.acquirePooled();
                        if (!held.add(r)) {
                            doubleLent++;
                        }
                        Thread.onSpinWait();
                        held.remove(r);
                        pool.releasePooled(r);
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
        assertThat(pool.pooledCount()).isBetween(1, 4);
    }
}
