import AmbleSignal
import AmbleSimulation
import RealModule
import Testing

/// The DSP building blocks of the heart-rate estimator (reusable by other signal code).
@Suite("DSP building blocks")
struct HeartRateDSPTests {
    @Test("Real FFT power equals a direct DFT, with zero padding", arguments: [(4, 4), (8, 8), (16, 16), (64, 50), (512, 200), (1024, 200), (1024, 1024)])
    func fftMatchesDFT(size: Int, count: Int) {
        var random = SeededRandom(seed: UInt64(size + count))
        let input = (0..<count).map { _ in random.gaussian() + 3 }
        var fft = RealFFT(size: size)
        var power: [Double] = []
        fft.powerSpectrum(of: input, count: count, into: &power)
        #expect(power.count == size / 2 + 1)
        // An odd step between the bins checked: a butterfly wrong for odd bins alone shows.
        for k in stride(from: 0, through: size / 2, by: max(1, size / 64 - 1)) {
            var re = 0.0, im = 0.0
            for n in 0..<count {
                let phase = -2 * Double.pi * Double(k * n) / Double(size)
                re += input[n] * Double.cos(phase)
                im += input[n] * Double.sin(phase)
            }
            let expected = re * re + im * im
            #expect(abs(power[k] - expected) <= 1e-9 * max(1, expected), "bin \(k): \(power[k]) vs \(expected)")
        }
    }

    @Test("Butterworth sections: unit gain in the pass band, -3 dB at the cutoff, zero at DC for the high-pass")
    func butterworthGains() {
        let rate = 25.0
        func gain(_ filter: Biquad, atHz f: Double) -> Double {
            var b = filter
            var peak = 0.0
            for n in 0..<2_000 {
                let y = b.process(Double.sin(2 * .pi * f * Double(n) / rate))
                if n > 1_500 { peak = max(peak, abs(y)) }
            }
            return peak
        }
        let low = Biquad.butterworthLowPass(cutoffHz: 4, sampleRateHz: rate)
        let high = Biquad.butterworthHighPass(cutoffHz: 0.5, sampleRateHz: rate)
        #expect(abs(low.dcGain - 1) < 1e-12)
        #expect(abs(high.dcGain) < 1e-12)
        #expect(abs(gain(low, atHz: 4) - 0.5.squareRoot()) < 0.01)
        #expect(abs(gain(high, atHz: 0.5) - 0.5.squareRoot()) < 0.01)
        #expect(abs(gain(low, atHz: 0.5) - 1) < 0.01)
        #expect(abs(gain(high, atHz: 4) - 1) < 0.01)
    }

    @Test("A band-pass settled on a huge DC level starts without a transient")
    func settledBandPass() {
        var filter = BandPassFilter(lowCutoffHz: 0.5, highCutoffHz: 4, sampleRateHz: 25)
        filter.settle(onConstantInput: 250_000)
        for _ in 0..<100 { #expect(abs(filter.process(250_000)) < 1e-6) }
    }

    @Test("Least squares removes a sinusoid and leaves the rest: a 1.5 Hz line removed, a 2.2 Hz line kept")
    func sinusoidRemoval() {
        let rate = 25.0, n = 200
        let t = (0..<n).map { Double($0) / rate }
        var block = t.map { 5 * Double.sin(2 * .pi * 1.5 * $0 + 0.3) + Double.sin(2 * .pi * 2.2 * $0) + 40 }
        var fit = LeastSquaresFit(maximumCount: n, maximumColumns: 5)
        fit.begin(count: n)
        fit.addConstant()
        fit.addSinusoid(cyclesPerSample: 1.5 / rate)
        let factored = fit.factor()
        #expect(factored)
        fit.removeFit(from: &block)
        let kept = t.map { Double.sin(2 * .pi * 2.2 * $0) }
        var error = 0.0, energy = 0.0
        for i in 0..<n { error += (block[i] - kept[i]) * (block[i] - kept[i]); energy += kept[i] * kept[i] }
        // The 2.2 Hz line is 0.7 Hz (5.6 resolutions) away: almost untouched.
        #expect(error < 0.01 * energy, "residual error \(error / energy) of the kept line's energy")
    }

    @Test("Least squares on delayed regressors: an artefact that follows the acceleration with a lag is removed; a zero column is harmless")
    func delayedRegressors() {
        let rate = 25.0, n = 200
        var random = SeededRandom(seed: 3)
        // Acceleration in g, broadband; the artefact is it delayed by 3 samples, in counts.
        let acceleration = (0..<n).map { _ in 0.02 * random.gaussian() }
        let pulse = (0..<n).map { Double.sin(2 * .pi * 1.9 * Double($0) / rate) }
        var block = (0..<n).map { i in 30_000 + 4_000 * acceleration[max(0, i - 3)] + pulse[i] }
        var fit = LeastSquaresFit(maximumCount: n, maximumColumns: 5)
        fit.begin(count: n)
        fit.addConstant()
        fit.addDelayed(acceleration, lag: 3)
        fit.addColumn { column, count in for i in 0..<count { column[i] = 0 } }
        #expect(fit.columnCount == 5)
        let factored = fit.factor()
        #expect(factored)
        fit.removeFit(from: &block)
        var error = 0.0, energy = 0.0
        for i in 0..<n { error += (block[i] - pulse[i]) * (block[i] - pulse[i]); energy += pulse[i] * pulse[i] }
        // Three free regressors take about 3/200 of the pulse's energy with them, no more.
        #expect(error < 0.05 * energy, "residual error \(error / energy) of the pulse's energy")
    }

    @Test("Least squares: the Gram matrix from the columns' kinds (harmonics and sinusoids in closed form, turned delays) fits as the summed one does")
    func structuredGram() {
        let n = 200
        var random = SeededRandom(seed: 11)
        let axis = (0..<n).map { _ in random.gaussian() * 0.05 }
        let block = (0..<n).map { _ in random.gaussian() * 100 + 35_000 }
        // A stride at 0.031 cycles per sample (46 /min at 25 Hz) and its harmonics 2...6, one
        // sinusoid that is none of them, a delayed axis.
        let stride = 0.031
        var structured = LeastSquaresFit(maximumCount: n, maximumColumns: 18)
        var summed = structured
        structured.begin(count: n)
        summed.begin(count: n)
        structured.addConstant()
        summed.addColumn { c, count in for i in 0..<count { c[i] = 1 } }
        structured.addHarmonics(fundamentalCyclesPerSample: stride, orders: 2...6)
        structured.addSinusoid(cyclesPerSample: 0.29)
        for f in (2...6).map({ Double($0) * stride }) + [0.29] {
            summed.addColumn { c, count in for i in 0..<count { c[i] = Double.cos(2 * .pi * f * Double(i)) } }
            summed.addColumn { c, count in for i in 0..<count { c[i] = Double.sin(2 * .pi * f * Double(i)) } }
        }
        structured.addDelayed(axis, lag: 3)
        for delay in [-3, 0, 3] {
            summed.addColumn { c, count in for i in 0..<count { c[i] = axis[min(count - 1, max(0, i - delay))] } }
        }
        _ = structured.factor()
        _ = summed.factor()
        var a = block, b = block
        structured.removeFit(from: &a)
        summed.removeFit(from: &b)
        let worst = zip(a, b).map { abs($0 - $1) }.max() ?? 0
        #expect(worst < 1e-6, "largest difference \(worst) counts on a residual of about 100")
    }

    @Test("Median and MAD agree with sorting", arguments: [1, 2, 7, 200, 201])
    func robustStatistics(count: Int) {
        var random = SeededRandom(seed: UInt64(count))
        let values = (0..<count).map { _ in (random.gaussian() * 10).rounded() }
        var scratch = Array(repeating: 0.0, count: count)
        let sorted = values.sorted()
        let median = count % 2 == 1 ? sorted[count / 2] : (sorted[count / 2 - 1] + sorted[count / 2]) / 2
        #expect(RobustStatistics.median(of: values, count: count, scratch: &scratch) == median)
        let deviations = values.map { abs($0 - median) }.sorted()
        let mad = count % 2 == 1 ? deviations[count / 2] : (deviations[count / 2 - 1] + deviations[count / 2]) / 2
        #expect(abs(RobustStatistics.scaledMAD(of: values, count: count, center: median, scratch: &scratch) - 1.4826 * mad) < 1e-12)
    }

    @Test("Ring buffer keeps the newest values in order")
    func ringBuffer() {
        var ring = RingBuffer(capacity: 5, filling: 0.0)
        for v in 1...8 { ring.append(Double(v)) }
        #expect(ring.count == 5)
        #expect(ring[age: 0] == 8 && ring[age: 4] == 4)
        var out = Array(repeating: 0.0, count: 3)
        ring.copyNewest(3, into: &out)
        #expect(out == [6, 7, 8])
        // Slots run from older to newer, wrapping at the capacity.
        var slot = ring.slot(age: 4)
        var walked: [Double] = []
        for _ in 0 ..< 5 {
            walked.append(ring[slot: slot])
            slot = slot + 1 == ring.capacity ? 0 : slot + 1
        }
        #expect(walked == [4, 5, 6, 7, 8])
        // Forgetting the newest, across the wrap (8 sits in slot 2 of 5, then 7, 6 in 1, 0).
        ring.removeNewest(); ring.removeNewest(); ring.removeNewest()
        #expect(ring.count == 2 && ring[age: 0] == 5 && ring[age: 1] == 4)
        ring.append(9)
        #expect(ring.count == 3 && ring[age: 0] == 9 && ring[age: 1] == 5)
        ring.removeAll()
        ring.removeNewest()
        #expect(ring.count == 0)
        ring.append(1)
        ring.removeAll()
        #expect(ring.count == 0)
    }

    @Test("Hann window without zero end points (NumPy's hanning(count + 2)[1:-1])")
    func windows() {
        let hann = WindowFunction.hann(count: 5)
        let expected = [0.25, 0.75, 1, 0.75, 0.25]
        #expect(zip(hann, expected).allSatisfy { abs($0 - $1) < 1e-12 }, "\(hann)")
    }
}
